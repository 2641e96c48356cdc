//! The text of chapter 2's sections of `REPRODUCTION.md`, beside the tables they quote: the γ
//! sweep, the ablation of what decides the held-out answer, and the learning-order ablation
//! (`plateau reproduce --experiment anchors [--ablation | --learning-order]` writes them).

use super::order::{learning_order_findings, learning_order_table};
use super::{
    ablation_findings, ablation_table, anchors_comparison, anchors_table, AblationCell, AnchorSummary, LEARNED,
};
use crate::config::RunConfig;

/// Chapter 2's task in words: the mix and the sequence length.
pub fn anchors_task_line(cfg: &RunConfig) -> String {
    format!(
        "{}, sequences of {} tokens, {}",
        if cfg.memory > 0.0 {
            format!("reasoning and memory anchors ({} memory samples)", cfg.memory)
        } else {
            "reasoning anchors only (no memory anchors)".to_string()
        },
        cfg.seq_len,
        if cfg.warmup > 0 { format!("{}-step linear warm-up", cfg.warmup) } else { "no warm-up".to_string() }
    )
}

/// The γ sweep's section of `base`'s runs (`csv_dir` holds their CSVs); `fresh`: the seeds the
/// preset was not chosen with, counted again on their own; the page's paragraph for the page's
/// default.
pub fn anchors_section(
    written_by: &str,
    base: &RunConfig,
    csv_dir: &str,
    runs: &[AnchorSummary],
    fresh: Option<&[u64]>,
    page: Option<&str>,
) -> String {
    // `--fresh-seeds`: the seeds the preset was not chosen with, counted on their own.
    let fresh_line = match fresh {
        Some(fresh) => {
            let only: Vec<_> = runs.iter().filter(|s| fresh.contains(&s.seed)).cloned().collect();
            format!(
                "\nOn the seeds the preset was not chosen with ({}), counted alone:\n\n{}",
                fresh.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", "),
                anchors_comparison(&only).split("\nAgainst the paper").next().unwrap_or_default()
            )
        }
        None => String::new(),
    };
    let page_paragraph = match page {
        Some(paragraph) => format!("\n### On the page\n\nChapter 2's text quotes this paragraph (`index.html`, section `chapter2-findings`):\n\n> {paragraph}\n"),
        None => String::new(),
    };
    format!(
        "## Chapter 2 — {} preset, anchors, {} (generated)\n\n\
         {}. Task: {}. Model: {} ({}), γ-init, AdamW. \
         Per-run CSVs: `{csv_dir}/`. The task is a reconstruction (PAPERS.md §B; the paper publishes no code): see \
         `src/chapters/anchors/data.rs` for what follows the predecessor's code and what does not.\n\n{}\n### Against the paper\n\n{}{}{}",
        base.preset.name(),
        base.model.name(),
        written_by,
        anchors_task_line(base),
        base.model.name(),
        crate::report::model_line(base),
        anchors_table(runs),
        anchors_comparison(runs),
        fresh_line,
        page_paragraph,
    )
}

/// The ablation's section (`dir` holds its runs; `base`: the mixed reconstruction each
/// configuration changes), with the page's paragraph on the longest runs when there are some.
pub fn ablation_section(
    written_by: &str,
    dir: &str,
    base: &RunConfig,
    cells: &[AblationCell],
    long_paragraph: Option<&str>,
) -> String {
    format!(
        "## Chapter 2 — what decides the held-out answer: an ablation (generated)\n\n\
         {}, from the runs in `{dir}/`. \
         Each configuration changes one factor of the mixed reconstruction ({}, {} memory samples, sequence length {}, \
         no warm-up) toward the pure reasoning task of the predecessor's code, which an independent PyTorch \
         implementation found inferential at γ = 0.8; the last rows combine factors or change one factor of the \
         interactive default, the latest of them (smaller batches, a larger learning rate) to find a faster \
         default for the compare view, whose large-init side settles last. Keys and noise share the range \
         20–99 in every row, as in that code. Every finished run of this command is listed; a configuration \
         whose seeds have not all finished shows the ones that have.\n\n{}\n### What it shows\n\n{}{}",
        written_by,
        crate::report::model_line(base),
        base.memory,
        base.seq_len,
        ablation_table(cells),
        ablation_findings(cells),
        long_paragraph.map_or(String::new(), |p| format!(
            "\n### On the page\n\nChapter 2's text quotes this paragraph (`index.html`, section `chapter2-long-findings`):\n\n> {p}\n"
        )),
    )
}

/// The learning-order ablation's section (`dir` holds its runs; `base`: the configuration each
/// factor changes; `results`: the cells and the fresh seeds), with the page's paragraph when the
/// whole ablation ran.
pub fn learning_order_section(
    written_by: &str,
    dir: &str,
    base: &RunConfig,
    results: (&[AblationCell], &[u64]),
    page: Option<&str>,
) -> String {
    let (cells, fresh) = results;
    format!(
        "## Chapter 2 — which subset is learned first: the memory design (generated)\n\n\
         {}, from the runs in `{dir}/`. \
         The base is the page's interactive default with half of each batch memory samples ({}; {}); each \
         configuration changes one factor of how the memory samples are made. The paper's claim (PAPERS.md §B): \
         at small init (large γ) the reasoning anchors are learned before the memory anchors, at large init the \
         memory anchors first. A subset is *learned* at the first evaluation with accuracy ≥ {}; a cell's \
         steps are memory step / reasoning step per seed (— = not within the run). Every finished run of \
         this command is listed.\n\n{}\n### What it shows\n\n{}{}",
        written_by,
        crate::report::model_line(base),
        anchors_task_line(base),
        LEARNED,
        learning_order_table(cells, fresh),
        learning_order_findings(cells, fresh),
        page.map_or(String::new(), |paragraph| format!(
            "\n### On the page\n\nChapter 2's text quotes this paragraph (`index.html`, section `chapter2-order-findings`):\n\n> {paragraph}\n"
        )),
    )
}
