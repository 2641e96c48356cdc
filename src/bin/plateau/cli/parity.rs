//! `plateau parity-dump`: what an independent implementation needs to train chapter 1's model
//! step by step beside the engine (`scripts/parity.sh` runs `bench/parity.py` on it): the initial
//! weights, every training batch, the held-out batches of the evaluation steps, the mask, and
//! the engine's own numbers (the loss at every step, the held-out loss and every other metric at
//! every evaluation, every parameter's gradient norm at every update).

use super::{output, parse_flags, CliError};
use plateau::backend;
use plateau::chapters::plateau::PlateauTrainer;
use plateau::tensor::block_on;
use plateau::train::Status;
use std::process::ExitCode;
/// `plateau parity-dump [--preset P] [--seed S] [--steps K] [schema keys] --out FILE.json`.
pub(super) fn cmd_parity_dump(args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::plateau::data;
    use plateau::rng::{stream, Stream};
    let flags = parse_flags(args, &["out", "backend", "quiet"])?;
    let out = flags.get("out").ok_or_else(|| CliError("parity-dump needs --out FILE.json".into()))?.to_string();
    output::check_writable(&out, "out")?;
    let mut cfg = flags.cfg.clone();
    if !matches!(cfg.experiment, plateau::config::Task::MWS | plateau::config::Task::PREFIX_SUM) {
        return Err(CliError("parity-dump runs chapter 1 (mws, prefix-sum) only".into()));
    }
    // The loss of every step is recorded (evaluation every step changes no training batch: each
    // comes from the seed's stream at its step); the held-out loss is compared every `eval-every`.
    let eval_every = cfg.eval_every;
    cfg.eval_every = 1;
    cfg.snapshot_every = cfg.steps.max(1);
    let kind = flags.backend()?;
    let mut t = PlateauTrainer::new(cfg.clone(), &backend::device(kind))?;
    t.trace_gradients();
    let params = block_on(plateau::train::parameters(t.model()));
    let quiet = flags.get("quiet").is_some();
    while block_on(t.advance()) == Status::Running {
        if !quiet && t.step() % 10 == 0 {
            eprint!("\rparity-dump: step {}/{}", t.step(), cfg.steps);
        }
    }
    if !quiet {
        eprintln!();
    }
    if let Status::Diverged(m) = t.status() {
        return Err(CliError(m.clone()));
    }
    let (n, t2) = (cfg.plateau.n, 2 * cfg.plateau.n);
    let task = data::SumTask::try_from(cfg.experiment).map_err(CliError)?;
    let batch = |b: usize, s: Stream, i: usize| {
        let g = data::generate(task, n, b, &mut stream(cfg.seed, s, i as u64));
        serde_json::json!({ "inputs": g.inputs(), "targets": g.targets() })
    };
    let eval_steps: Vec<usize> = (0..=cfg.steps).filter(|s| s % eval_every == 0).collect();
    let rows = &t.history.rows;
    let mask = (cfg.plateau.c != 1.0).then(|| data::mask_matrix(task, n, cfg.plateau.c as f32));
    let doc = serde_json::json!({
        "config": serde_json::from_str::<serde_json::Value>(&plateau::config::to_json(&cfg))?,
        "vocab": data::VOCAB,
        "positions": t2,
        "backend": kind.name(),
        "params": params.iter().map(|(shape, values)| serde_json::json!({ "shape": shape, "values": values })).collect::<Vec<_>>(),
        "mask": mask,
        "batches": (0..=cfg.steps).map(|s| batch(cfg.batch, Stream::Train, s)).collect::<Vec<_>>(),
        "eval_steps": eval_steps,
        "eval_batches": eval_steps.iter().map(|&s| batch(cfg.eval_batch, Stream::Eval, s)).collect::<Vec<_>>(),
        "loss": rows.iter().map(|r| r.loss).collect::<Vec<_>>(),
        "test_loss": eval_steps.iter().map(|&s| rows.iter().find(|r| r.step == s).map_or(f64::NAN, |r| r.test_loss)).collect::<Vec<_>>(),
        "grad_norms": t.grad_norms.clone().unwrap_or_default(),
        // Every metric of the evaluation steps (`MetricRow`), for the transcription's metrics.
        "eval_rows": eval_steps.iter().map(|&s| rows.iter().find(|r| r.step == s)).collect::<Vec<_>>(),
    });
    output::write_file(&out, serde_json::to_string(&doc)?.as_bytes())?;
    eprintln!("parity-dump: wrote {out} ({} steps, {} parameter tensors)", cfg.steps, params.len());
    Ok(ExitCode::SUCCESS)
}
