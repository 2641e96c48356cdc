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
        if cfg.anchors.memory > 0.0 {
            format!("reasoning and memory anchors ({} memory samples)", cfg.anchors.memory)
        } else {
            "reasoning anchors only (no memory anchors)".to_string()
        },
        cfg.anchors.seq_len,
        if cfg.warmup > 0 { format!("{}-step linear warm-up", cfg.warmup) } else { "no warm-up".to_string() }
    )
}

/// The shard count in a section's title when it is not the preset's own (chapter 2's interactive
/// default trains 4 shards since URL version 4; its one-shard runs are kept in their own section).
pub fn shards_title(base: &RunConfig) -> String {
    let preset = RunConfig::defaults(base.experiment, base.preset).shards;
    match (base.shards, preset) {
        (s, p) if s == p && s == 1 => String::new(),
        (1, _) => ", one shard".to_string(),
        (s, _) => format!(", {s} shards"),
    }
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
        "## Chapter 2 — {} preset, anchors, {}{} (generated)\n\n\
         {}. Task: {}. Model: {} ({}), γ-init, AdamW. \
         Per-run CSVs: `{csv_dir}/`. The task is a reconstruction (PAPERS.md §B; the paper publishes no code): see \
         `src/chapters/anchors/data.rs` for what follows the predecessor's code and what does not.\n\n{}\n### Against the paper\n\n{}{}{}",
        base.preset.name(),
        base.anchors.model.name(),
        shards_title(base),
        written_by,
        anchors_task_line(base),
        base.anchors.model.name(),
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
        base.anchors.memory,
        base.anchors.seq_len,
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

/// One run of the budget search: its seed, whether it is fresh (not searched), its rows.
pub type BudgetRun<'a> = (u64, bool, &'a [super::super::rows::AnchorRow]);

/// The budget search's section (issue 50, item 6; the rules in [`super::budget`]): every run read at
/// every budget, the count of settled runs per budget, the chosen budget (searched seeds only),
/// the fresh seeds at it, the check that a long run's first steps are the short run's (`prefix`:
/// `(seeds compared, equal, largest difference)` against the sweep's runs at the first budget),
/// and the page's default comparison budget against the chosen one. Returns the section and the
/// page's paragraph (quoted in it).
pub fn budget_section(
    written_by: &str,
    dir: &str,
    base: &RunConfig,
    budgets: &[usize],
    runs: &[BudgetRun],
    prefix: Option<(usize, usize, f64)>,
) -> (String, String) {
    use super::budget::{budget_cell, choose_budget, settled_at, settled_count, HOLD_EVALS, SEARCHED_NEEDED};
    use super::Answer;
    let every = base.eval_every;
    let mut table = format!(
        "| seed | {} |\n|---|{}\n",
        budgets.iter().map(|b| format!("at {b}")).collect::<Vec<_>>().join(" | "),
        "---|".repeat(budgets.len())
    );
    for (seed, fresh, rows) in runs {
        let cells: Vec<String> = budgets.iter().map(|&b| budget_cell(settled_at(rows, b, every))).collect();
        table += &format!("| {seed}{} | {} |\n", if *fresh { " (fresh)" } else { "" }, cells.join(" | "));
    }
    let searched: Vec<&[super::super::rows::AnchorRow]> = runs.iter().filter(|r| !r.1).map(|r| r.2).collect();
    let fresh: Vec<&[super::super::rows::AnchorRow]> = runs.iter().filter(|r| r.1).map(|r| r.2).collect();
    let counts = budgets
        .iter()
        .map(|&b| format!("{} of {} at {b}", settled_count(&searched, b, every, Answer::Symmetric), searched.len()))
        .collect::<Vec<_>>()
        .join(", ");
    let needed = SEARCHED_NEEDED.min(searched.len());
    let chosen = choose_budget(&searched, budgets, every, Answer::Symmetric, needed);
    let verdict = match chosen {
        Some(b) => format!(
            "**Budget: {b} steps**, the smallest at which at least {needed} of the {} searched seeds settled \
             symmetric. On the fresh seeds at {b}: {} of {} settled symmetric.",
            searched.len(),
            settled_count(&fresh, b, every, Answer::Symmetric),
            fresh.len()
        ),
        None => format!(
            "**No budget up to {} steps** has at least {needed} of the {} searched seeds settled symmetric.",
            budgets.last().copied().unwrap_or(0),
            searched.len()
        ),
    };
    let prefix_line = match prefix {
        Some((n, equal, diff)) => format!(
            " The first {} steps of these runs against the γ sweep's {}-step runs of the same seeds: \
             equal row for row in {equal} of {n} (largest difference {diff:.1e}).",
            budgets[0], budgets[0]
        ),
        None => String::new(),
    };
    let page = crate::page::DEFAULT_COMPARE_STEPS as usize;
    let page_line = format!(
        "The page's compare view trains its large-init side {page} steps by default (`compare-steps`, \
         `page::DEFAULT_COMPARE_STEPS`): {}.",
        match chosen {
            Some(b) if b == page => "the chosen budget".to_string(),
            Some(b) => format!("differs from the chosen budget ({b})"),
            None => "no budget was chosen".to_string(),
        }
    );
    let paragraph = match chosen {
        Some(b) => format!(
            "<strong>The large init's budget</strong> (in REPRODUCTION.md): beside the default, γ {} trains {page} \
             steps. Its answer on the held-out pair had settled symmetric by step {b} in {} of {} searched seeds \
             and {} of {} fresh ones (by step {} in {} of {}).",
            base.anchors.gamma,
            settled_count(&searched, b, every, Answer::Symmetric),
            searched.len(),
            settled_count(&fresh, b, every, Answer::Symmetric),
            fresh.len(),
            budgets[0],
            settled_count(&searched, budgets[0], every, Answer::Symmetric),
            searched.len(),
        ),
        None => format!(
            "<strong>The large init's budget</strong> (in REPRODUCTION.md): beside the default, γ {} trains {page} \
             steps; by step {} its answer on the held-out pair had settled symmetric in fewer than {needed} of {} \
             searched seeds.",
            base.anchors.gamma,
            budgets.last().copied().unwrap_or(0),
            searched.len()
        ),
    };
    // A γ other than the compare view's is a candidate measured in its place (issue 50 item 6):
    // its section says so and the page quotes nothing of it.
    let page_gamma = crate::page::DEFAULT_COMPARE;
    let candidate = base.anchors.gamma != page_gamma;
    let (title, candidate_line, page_line, on_page) = if candidate {
        (
            format!("the large init's budget at γ {}, a candidate for the compare view", base.anchors.gamma),
            format!(
                " The page's compare view trains γ {page_gamma} (`page::DEFAULT_COMPARE`); this section measures \
                 γ {} as a candidate in its place, by the same rules.",
                base.anchors.gamma
            ),
            format!("The page's compare view trains γ {page_gamma}, not this candidate."),
            String::new(),
        )
    } else {
        (
            "the large init's budget in the compare view".to_string(),
            String::new(),
            page_line,
            format!(
                "### On the page\n\nChapter 2's text quotes this paragraph (`index.html`, section \
                 `chapter2-budget-findings`):\n\n> {paragraph}\n"
            ),
        )
    };
    let section = format!(
        "## Chapter 2 — {title} (generated)\n\n\
         {written_by}, from the runs in `{dir}/`. The compare view trains the page's default (γ {}) beside a \
         large init (γ {}), which settles later.{candidate_line} Each seed trains the large init {} steps ({}, {}, γ-init, \
         AdamW), read at each budget: the learning rate is constant after its {}-step warm-up, so a run's \
         first B steps are a run of B steps.{prefix_line} Rules fixed before the runs \
         (`chapters::anchors::summary::budget`): a run has *settled* at B when its answer on the held-out \
         pair at the last evaluation up to B is inferential or symmetric and held for {HOLD_EVALS} \
         evaluations (✓); the budget is the smallest B at which at least {needed} of the searched seeds \
         settled symmetric, then counted on the fresh seeds alone. Every finished run is listed.\n\n{table}\n\
         ### What it shows\n\nSettled symmetric: {counts}. {verdict} {page_line}\n\n{on_page}",
        RunConfig::defaults(crate::config::Task::Anchors, base.preset).anchors.gamma,
        base.anchors.gamma,
        base.steps,
        anchors_task_line(base),
        crate::report::model_line(base),
        base.warmup,
    );
    (section, paragraph)
}
