//! Unit tests of `controls`.

use super::*;
use crate::config::{Kind, ParamSpec, RunConfig, PARAMS};

#[test]
fn every_control_fits_its_key() {
    let controls: Vec<(&ParamSpec, Control)> = PARAMS.iter().filter_map(|p| control(p.key).map(|c| (p, c))).collect();
    assert_eq!(controls.len(), 16, "the page's controls");
    assert_eq!(controls.len(), CONTROLS.len(), "every control names a key of the schema");
    let mut keys: Vec<&str> = CONTROLS.iter().map(|(k, _)| *k).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), CONTROLS.len(), "one control per key");
    for (p, c) in controls {
        assert!(!c.label.is_empty() && !c.help.is_empty(), "{}", p.key);
        assert!(c.chapters.iter().all(|ch| (1..=4).contains(ch)), "{}", p.key);
        match c.widget {
            Widget::Slider { step, digits, snap, .. } => {
                let Kind::Float { min, max, log } = p.kind else { panic!("{}: a slider needs a float key", p.key) };
                let (lo, hi) = if log { (min.log10(), max.log10()) } else { (min, max) };
                assert!(step > 0.0 && step < hi - lo && digits > 0, "{}", p.key);
                assert!(snap.is_none_or(|s| (min..=max).contains(&s)), "{}", p.key);
            }
            Widget::Number => {
                assert!(matches!(p.kind, Kind::Int { .. }), "{}: a number box needs an int key", p.key)
            }
            Widget::Select { options } => {
                assert!(!options.is_empty(), "{}", p.key);
                for (value, label) in options {
                    assert!(!label.is_empty());
                    RunConfig::default().set(p.key, value).unwrap_or_else(|e| panic!("{}: option {value}: {e}", p.key));
                }
            }
        }
    }
}
