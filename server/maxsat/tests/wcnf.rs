mod common;

use common::{lit, random_instance, Rng};
use faultlens_maxsat::{read_wcnf, write_wcnf, Instance, WcnfError};

fn written(instance: &Instance) -> String {
    let mut out = Vec::new();
    write_wcnf(instance, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn writes_the_2022_format() {
    let mut instance = Instance::new();
    instance.add_hard([lit(1), lit(-2)]);
    instance.add_hard([]);
    instance.add_soft(lit(2), 7).unwrap();
    instance.add_soft(lit(-3), 1).unwrap();
    let text = written(&instance);
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with('c')).collect();
    assert_eq!(body, ["h 1 -2 0", "h 0", "7 2 0", "1 -3 0"]);
}

#[test]
fn round_trips_random_instances() {
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let instance = random_instance(&mut rng);
        let back = read_wcnf(written(&instance).as_bytes()).unwrap();
        assert_eq!(back.hard(), instance.hard());
        assert_eq!(back.soft(), instance.soft());
        // Declared but unused variables are not part of the format.
        let body = |text: String| -> Vec<String> {
            text.lines()
                .filter(|l| !l.starts_with('c'))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(body(written(&back)), body(written(&instance)));
    }
}

#[test]
fn reads_soft_clauses_through_a_relaxation_variable() {
    let instance = read_wcnf("c x\nh 1 2 0\n3 -1 -2 0\n4 2 0\n".as_bytes()).unwrap();
    // r = variable 3 (ipasir 3): hard (-1 -2 3), soft -3 of weight 3.
    assert_eq!(instance.hard().len(), 2);
    assert_eq!(
        instance.hard()[1].iter().copied().collect::<Vec<_>>(),
        [lit(-1), lit(-2), lit(3)]
    );
    assert_eq!(instance.soft()[0].lit, lit(-3));
    assert_eq!(instance.soft()[0].weight, 3);
    assert_eq!(instance.soft()[1].lit, lit(2));
}

#[test]
fn reads_the_old_format_with_top() {
    let text = "p wcnf 2 3 10\n10 1 2 0\n3 -1 0\n12 -2 0\n";
    let instance = read_wcnf(text.as_bytes()).unwrap();
    assert_eq!(instance.hard().len(), 2);
    assert_eq!(instance.soft().len(), 1);
    assert_eq!(instance.soft()[0].weight, 3);
}

#[test]
fn merges_repeated_soft_literals() {
    let instance = read_wcnf("2 1 0\n3 1 0\n".as_bytes()).unwrap();
    assert_eq!(instance.soft().len(), 1);
    assert_eq!(instance.soft()[0].weight, 5);
}

#[test]
fn reports_the_line_of_a_malformed_clause() {
    let cases = [
        ("h 1 2 0\nh 1 x 0\n", 2, "`x` is not a literal"),
        ("h 1 2\n", 1, "does not end with 0"),
        ("c\n\nq 1 0\n", 3, "expected `h` or a weight"),
        ("p cnf 1 1\n", 1, "p wcnf"),
    ];
    for (text, line, fragment) in cases {
        match read_wcnf(text.as_bytes()) {
            Err(WcnfError::Syntax { line: got, message }) => {
                assert_eq!(got, line, "{text:?}");
                assert!(message.contains(fragment), "{message}");
            }
            other => panic!("{text:?} gave {other:?}"),
        }
    }
}

#[test]
fn rejects_weights_that_overflow() {
    let text = format!("{} 1 0\n{} 2 0\n", u64::MAX / 2, u64::MAX / 2);
    let error = read_wcnf(text.as_bytes()).unwrap_err();
    assert!(error.to_string().contains("line 1") || error.to_string().contains("line 2"));
    assert!(
        error.to_string().contains("scale the weights down"),
        "{error}"
    );
}
