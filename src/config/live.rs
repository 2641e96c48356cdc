//! Live changes: the schema's `live` keys as typed values. A change is parsed and range-checked
//! once, at the engine's boundary ([`LiveChange::parse`], from the page's `(key, text)`), and
//! travels inward as a value of its own type ([`LiveChange::apply`]); a key that needs a reset
//! is refused there with the list of live keys.

use super::{ConfigError, RunConfig, PARAMS};

/// One change to a running config: a live key (`live: true` in [`PARAMS`]; a test holds the
/// two lists equal) with its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LiveChange {
    /// `steps`: training steps (a finished run resumes when it grows past the step).
    Steps(usize),
    /// `c`: chapter 1's mask strength.
    C(f64),
    /// `c-from`: the step from which the mask applies.
    CFrom(usize),
    /// `lr`: the learning rate.
    Lr(f64),
    /// `eval-every`: the evaluation cadence.
    EvalEvery(usize),
    /// `snapshot-every`: the snapshot cadence.
    SnapshotEvery(usize),
    /// `lambda`: chapter 3's regularizer strength.
    Lambda(f64),
    /// `lambda-from`: the first step λ applies.
    LambdaFrom(usize),
    /// `lambda-until`: the step λ stops applying.
    LambdaUntil(usize),
    /// `log-evals`: chapter 4's log-spaced evaluations on (true) or off.
    LogEvals(bool),
}

impl LiveChange {
    /// Parses `value` for `key` against `cfg` (the schema's range check, and the rules between
    /// keys that a strict [`RunConfig::set`] applies); refuses a key that is not live, naming the
    /// live ones.
    pub fn parse(cfg: &RunConfig, key: &str, value: &str) -> Result<LiveChange, ConfigError> {
        let refuse = || ConfigError {
            key: key.to_string(),
            value: value.to_string(),
            allowed: format!(
                "a live parameter ({}); others apply at reset",
                PARAMS.iter().filter(|p| p.live).map(|p| p.key).collect::<Vec<_>>().join(", ")
            ),
            safe: Some(cfg.get(key).unwrap_or_default()),
        };
        if !super::spec(key).is_some_and(|p| p.live) {
            return Err(refuse());
        }
        let mut next = cfg.clone();
        next.set(key, value)?;
        Ok(match key {
            "steps" => LiveChange::Steps(next.steps),
            "c" => LiveChange::C(next.plateau.c),
            "c-from" => LiveChange::CFrom(next.plateau.c_from),
            "lr" => LiveChange::Lr(next.lr),
            "eval-every" => LiveChange::EvalEvery(next.eval_every),
            "snapshot-every" => LiveChange::SnapshotEvery(next.snapshot_every),
            "lambda" => LiveChange::Lambda(next.syntax.lambda),
            "lambda-from" => LiveChange::LambdaFrom(next.syntax.lambda_from),
            "lambda-until" => LiveChange::LambdaUntil(next.syntax.lambda_until),
            "log-evals" => LiveChange::LogEvals(next.lm.log_evals == 1),
            _ => return Err(refuse()),
        })
    }

    /// Its key.
    pub fn key(self) -> &'static str {
        match self {
            LiveChange::Steps(_) => "steps",
            LiveChange::C(_) => "c",
            LiveChange::CFrom(_) => "c-from",
            LiveChange::Lr(_) => "lr",
            LiveChange::EvalEvery(_) => "eval-every",
            LiveChange::SnapshotEvery(_) => "snapshot-every",
            LiveChange::Lambda(_) => "lambda",
            LiveChange::LambdaFrom(_) => "lambda-from",
            LiveChange::LambdaUntil(_) => "lambda-until",
            LiveChange::LogEvals(_) => "log-evals",
        }
    }

    /// Writes the change into `cfg`.
    pub fn apply(self, cfg: &mut RunConfig) {
        match self {
            LiveChange::Steps(v) => cfg.steps = v,
            LiveChange::C(v) => cfg.plateau.c = v,
            LiveChange::CFrom(v) => cfg.plateau.c_from = v,
            LiveChange::Lr(v) => cfg.lr = v,
            LiveChange::EvalEvery(v) => cfg.eval_every = v,
            LiveChange::SnapshotEvery(v) => cfg.snapshot_every = v,
            LiveChange::Lambda(v) => cfg.syntax.lambda = v,
            LiveChange::LambdaFrom(v) => cfg.syntax.lambda_from = v,
            LiveChange::LambdaUntil(v) => cfg.syntax.lambda_until = v,
            LiveChange::LogEvals(v) => cfg.lm.log_evals = usize::from(v),
        }
    }
}
