//! The page's controls: for each key the page shows, its label, help, chapters and widget —
//! UI copy, kept out of `config` (which holds what a run is). A control's range, scale, type and
//! whether it applies live come from its key's [`crate::config::ParamSpec`], so a control's
//! range is always its key's range; the page builds every control from `paramSchema()`, which
//! joins the two tables by key.

use serde::Serialize;

/// How the page shows a parameter: label, help, widget and chapters. The range, the scale (log
/// or linear), the type and whether it applies live come from the key's [`crate::config::ParamSpec`].
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Control {
    /// Label text.
    pub label: &'static str,
    /// One or two sentences under the control (plain text); the page adds "Applies live." or
    /// "Applies at reset." from `ParamSpec::live`.
    pub help: &'static str,
    /// The chapters that show it (empty: every chapter).
    pub chapters: &'static [u8],
    /// The widget.
    pub widget: Widget,
}

/// A control's widget.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Widget {
    /// A slider over the key's range (over log₁₀ of it for a log range) in steps of `step`
    /// (log₁₀ units for a log range). A log slider's value has `digits` significant digits, a
    /// linear one is rounded to its step; within 2.5 steps of `snap` (when set) the value is
    /// `snap` exactly.
    Slider {
        /// Slider step.
        step: f64,
        /// Significant digits of the value.
        digits: u32,
        /// A value the slider snaps to (c = 1, the mask off).
        snap: Option<f64>,
        /// The text shown for the snapped value (e.g. "1 (off)").
        snap_label: &'static str,
        /// What the slider's two ends do, shown under its left and right ends (`("", "")`: no
        /// labels); a slider whose middle is a neutral value says which side is which (λ:
        /// "← encourage the head", "discourage it →").
        sides: (&'static str, &'static str),
    },
    /// A number box over the key's range.
    Number,
    /// A select: `(value, label)` options; a value not listed (from a URL or file) is shown as
    /// an extra option.
    Select {
        /// The options.
        options: &'static [(&'static str, &'static str)],
    },
}

/// The page's controls, by key, in the schema's order (the other keys are URL, config-file and
/// CLI keys only).
pub const CONTROLS: &[(&str, Control)] = &[
    ("experiment", Control {
                label: "Task",
                help: "What the model must write: the moving-window sum y_i = (x_{i−1} + x_i) mod 17 (the paper’s), or the prefix sum y_i = (x_1 + … + x_i) mod 17.",
                chapters: &[1],
                widget: Widget::Select { options: &[("mws", "moving-window sum"), ("prefix-sum", "prefix sum")] },
            }),
    ("preset", Control {
                label: "Preset",
                help: "Paper: the papers’ larger setups — minutes per run on a CPU.",
                chapters: &[],
                widget: Widget::Select { options: &[("interactive", "interactive (small, fast)"), ("paper", "paper (exact, slow)")] },
            }),
    ("seed", Control {
                label: "Seed",
                help: "Weights and data; the same seed gives the same run.",
                chapters: &[],
                widget: Widget::Number,
            }),
    ("d-model", Control {
                label: "Width",
                help: "The model's width (the MLP keeps its preset's size). Wider models start with hidden states more alike.",
                chapters: &[4],
                widget: Widget::Select {
                    options: &[("64", "64 (interactive)"), ("128", "128"), ("256", "256 (slower)"), ("512", "512 (much slower)")],
                },
            }),
    ("attention", Control {
                label: "Attention",
                help: "Linear: scores without softmax, as in the paper.",
                chapters: &[1],
                widget: Widget::Select { options: &[("linear", "linear (paper)"), ("softmax", "softmax")] },
            }),
    ("c", Control {
                label: "Attention mask c",
                help: "Scales the attention on the inputs each answer needs: above 1 steers attention to them, below 1 away, 1 is off.",
                chapters: &[1],
                widget: Widget::Slider { step: 0.01, digits: 3, snap: Some(1.0), snap_label: "1 (off)", sides: ("← away from them", "toward them →") },
            }),
    ("c-from", Control {
                label: "Mask from step",
                help: "The mask c acts from this step on.",
                chapters: &[1],
                widget: Widget::Number,
            }),
    ("lr", Control {
                label: "Learning rate",
                help: "Adam/AdamW step size (log scale).",
                chapters: &[],
                widget: Widget::Slider { step: 0.05, digits: 2, snap: None, snap_label: "", sides: ("", "") },
            }),
    ("gamma", Control {
                label: "Init scale γ",
                help: "How small the starting weights are: larger γ, smaller weights (their spread is width^−γ).",
                chapters: &[2],
                widget: Widget::Slider { step: 0.05, digits: 2, snap: None, snap_label: "", sides: ("← larger weights", "smaller weights →") },
            }),
    ("model", Control {
                label: "Model",
                help: "The paper’s simplified model has no attention; its embeddings move the same way.",
                chapters: &[2],
                widget: Widget::Select {
                    options: &[
                        ("transformer", "transformer (2 layers, 1 head)"),
                        ("emb-mlp", "Emb-MLP (embedding → mean → MLP)"),
                    ],
                },
            }),
    ("memory", Control {
                label: "Task",
                help: "Memory anchors map each key to a random label: only a lookup table can fit them.",
                chapters: &[2],
                widget: Widget::Select {
                    // 5/16 memory samples: the share at which the learning-order ablation found the
                    // paper's order (REPRODUCTION.md; issue 36: a design that shows it becomes the
                    // mixed task's default). Other shares come from the URL (`memory=`).
                    options: &[("0", "reasoning anchors only"), ("0.3125", "reasoning + memory anchors (5/16 memory)")],
                },
            }),
    ("grammar", Control {
                label: "Language",
                help: "What the model learns: nested clauses whose verbs their subjects choose (the chapter's default, on 1 layer), subject–verb number agreement (its first version, on 2 layers), the nested language with only verbs masked, typed brackets, or a verb slot that copies its subject's class across embedded clauses.",
                chapters: &[3],
                widget: Widget::Select {
                    options: &[
                        ("nested", "nested clauses"),
                        ("agreement", "number agreement"),
                        ("nested-verbs", "nested, verbs masked"),
                        ("dyck", "typed brackets"),
                        ("copy", "copy agreement"),
                    ],
                },
            }),
    ("lambda", Control {
                label: "Regularizer λ",
                help: "Adds λ × (attention from each verb to its subject) to the loss: above 0 discourages that head, below 0 encourages it.",
                chapters: &[3],
                widget: Widget::Slider { step: 0.005, digits: 3, snap: None, snap_label: "", sides: ("← promote the head", "suppress it →") },
            }),
    ("lambda-from", Control { label: "λ from step", help: "λ acts from this step on.", chapters: &[3], widget: Widget::Number }),
    ("lambda-until", Control {
                label: "λ until step",
                help: "λ stops at this step (300, say, for a brief early suppression).",
                chapters: &[3],
                widget: Widget::Number,
            }),
    ("shards", Control {
                label: "Shards",
                help: "Slices of each step's batch, shared by workers on this machine's cores, with the same rows for any number of workers. 1 as the measured runs; 4 differs only by rounding, and is faster where a step is long, as in chapter 2 (BENCHMARKS.md).",
                chapters: &[1, 2, 4],
                widget: Widget::Select { options: &[("1", "1 (one worker)"), ("4", "4 (shared by the workers)")] },
            }),
];

/// The control of `key`, if the page shows one.
pub fn control(key: &str) -> Option<Control> {
    CONTROLS.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
}

#[cfg(test)]
mod tests;
