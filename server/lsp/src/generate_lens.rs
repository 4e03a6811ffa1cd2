//! The "generate tests to break this tie" lens: on the first line (in this
//! file) of the tie group that holds rank 1, when several lines share it.
//! Test generation is what separates lines every test runs alike.

use crate::localization::{Entry, Localization};
use crate::placement::FileView;
use serde_json::json;
use tower_lsp_server::ls_types::{CodeLens, Command, Position, Range};

pub use crate::protocol::GENERATE_TESTS;

/// The lines tied at the top: suspicious entries whose best rank is 1 and
/// that share it with others. Empty when one line is first alone.
pub fn top_tie<'a>(loc: &'a Localization) -> Vec<Entry<'a>> {
    loc.suspicious_entries()
        .take_while(|e| e.ranked.rank.best == 1)
        .filter(|e| e.ranked.rank.worst > e.ranked.rank.best)
        .collect()
}

/// The strategy the lens asks for: SAT-TAR when a stored diagnosis gives it
/// an unsatisfiable core to aim at, sfo_p otherwise.
pub fn lens_strategy(has_diagnosis: bool) -> &'static str {
    if has_diagnosis {
        "sat-tar"
    } else {
        "sfo_p"
    }
}

/// The lens of one file (at most one). The caller decides whether the
/// project is a harness and the workspace trusted.
pub fn tie_lenses(loc: &Localization, view: &FileView, has_diagnosis: bool) -> Vec<CodeLens> {
    let tie = top_tie(loc);
    let Some(first) = tie
        .iter()
        .filter(|e| e.file == view.file)
        .filter_map(|e| view.place(e))
        .min_by_key(|p| p.line)
    else {
        return vec![];
    };
    let rank = tie.first().map_or(1.0, |e| e.ranked.rank.average);
    let strategy = lens_strategy(has_diagnosis);
    vec![CodeLens {
        range: Range::new(Position::new(first.line, 0), Position::new(first.line, 0)),
        command: Some(Command {
            title: format!(
                "generate tests to break this tie ({} lines at rank {rank}, {strategy})",
                tie.len()
            ),
            command: GENERATE_TESTS.into(),
            arguments: Some(vec![json!({ "strategy": strategy })]),
        }),
        data: None,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::{results, SOURCE};
    use faultlens_core::measures::Formula;
    use std::path::Path;

    fn view(loc: &Localization) -> FileView<'static> {
        FileView {
            file: 0,
            uri: loc.uri_of("src/sum.c").unwrap(),
            tracker: None,
            lines: SOURCE.split('\n').collect(),
            changed_on_disk: false,
        }
    }

    #[test]
    fn a_line_first_alone_gets_no_lens() {
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        assert!(top_tie(&loc).is_empty());
        assert!(tie_lenses(&loc, &view(&loc), false).is_empty());
    }

    #[test]
    fn a_tie_at_rank_1_gets_one_lens_on_its_first_line() {
        // Without the passing tests that run line 6 but not line 4 (or the
        // reverse), lines 4 and 6 tie at the top.
        let mut tied = results();
        tied.tests.truncate(3);
        let loc = Localization::new(tied, Formula::Ochiai, Path::new("/project"));
        let lines: Vec<u32> = top_tie(&loc).iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![4, 6]);
        let lenses = tie_lenses(&loc, &view(&loc), false);
        assert_eq!(lenses.len(), 1);
        assert_eq!(lenses[0].range.start.line, 3);
        let command = lenses[0].command.as_ref().unwrap();
        assert_eq!(command.command, GENERATE_TESTS);
        assert_eq!(
            command.title,
            "generate tests to break this tie (2 lines at rank 1.5, sfo_p)"
        );
        assert_eq!(
            command.arguments.as_ref().unwrap()[0],
            json!({"strategy": "sfo_p"})
        );
        let with_diagnosis = tie_lenses(&loc, &view(&loc), true);
        assert_eq!(
            with_diagnosis[0]
                .command
                .as_ref()
                .unwrap()
                .arguments
                .as_ref()
                .unwrap()[0],
            json!({"strategy": "sat-tar"})
        );
    }

    #[test]
    fn other_files_get_no_tie_lens() {
        let mut tied = results();
        tied.tests.truncate(3);
        let loc = Localization::new(tied, Formula::Ochiai, Path::new("/project"));
        let mut other = view(&loc);
        other.file = 1;
        assert!(tie_lenses(&loc, &other, false).is_empty());
    }
}
