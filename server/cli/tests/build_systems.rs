//! Projects the way they are built, end to end: Meson (a coverage build of
//! its own beside the user's) with real meson, ninja and gcc.

mod common;
use common::*;

#[test]
fn meson_projects_are_detected_built_in_their_own_directory_and_ranked() {
    let dir = fixture("wrap-meson");
    let doc = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(doc["tests"]["total"], 8);
    assert_eq!(doc["tests"]["failed"], 2);
    let failing: Vec<&str> = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "fail")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(failing, ["two-lines", "exact-fit"]);
    let fault = entry(&doc, "src/wrap.c", 24);
    assert_eq!(
        (fault["ef"].as_u64(), fault["nf"].as_u64()),
        (Some(2), Some(0))
    );
    assert!(
        doc["ranking"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["file"].as_str().unwrap().starts_with("src/")),
        "the test driver is not ranked"
    );
    assert!(dir
        .path()
        .join(".faultlens/meson-build/build.ninja")
        .is_file());
    assert!(
        !dir.path().join("build").exists(),
        "the user's tree holds no build"
    );
    assert_eq!(results(dir.path())["suite"], "meson");
    // The second run compiles incrementally in the same directory.
    let again = localize_json(dir.path(), &["--top", "0"]);
    assert_eq!(again["tests"]["failed"], 2);
}

#[test]
fn a_meson_test_that_should_fail_passes_when_it_fails() {
    let dir = fixture("wrap-meson");
    let build = dir.path().join("meson.build");
    let text = std::fs::read_to_string(&build).unwrap();
    std::fs::write(
        &build,
        format!("{text}test('unknown-check', check, args: ['no-such-check'], should_fail: true)\n"),
    )
    .unwrap();
    let doc = localize_json(dir.path(), &["--top", "0"]);
    let test = doc["tests"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "unknown-check")
        .expect("the new test is found");
    assert_eq!(test["verdict"], "pass", "{test}");
    // Declared with a literal name: located at its test() call.
    assert_eq!(test["location"]["file"], "meson.build");
    assert_eq!(test["location"]["line"], text.lines().count() as u64 + 1);
}
