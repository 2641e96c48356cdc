//! What every chapter's reports share: the section markers of the generated documents and the
//! one-sentence curve summaries of the page.

/// A one-sentence live summary of a recorded curve for screen readers and the chart caption:
/// the last value and for how many steps it has stayed within ±2 % (relative to the larger of
/// its magnitude and 0.05) of that value, e.g. "loss 2.631 at step 120, flat for the last 80 steps."
pub fn series_summary(label: &str, points: &[(f64, f64)], digits: usize) -> String {
    let Some(&(step, last)) = points.last() else {
        return format!("No {label} recorded yet.");
    };
    if !last.is_finite() {
        return format!("{label} is {last} at step {step}.");
    }
    let tol = 0.02 * last.abs().max(0.05);
    let since = points.iter().rev().take_while(|(_, y)| (y - last).abs() <= tol).last().map_or(step, |p| p.0);
    let flat = step - since;
    let trend = match points.iter().rev().find(|(x, _)| *x <= step - (flat.max(1.0))) {
        Some(&(_, prev)) if flat < 1.0 || points.len() < 3 => {
            if last > prev {
                ", rising"
            } else if last < prev {
                ", falling"
            } else {
                ""
            }
        }
        _ => "",
    };
    if flat >= 1.0 && points.len() >= 3 {
        format!("{label} {last:.digits$} at step {step}, flat for the last {flat} steps.")
    } else {
        format!("{label} {last:.digits$} at step {step}{trend}.")
    }
}

/// The body of the section `name` of `doc` (between its markers, trimmed), if it has one.
pub fn section<'a>(doc: &'a str, name: &str) -> Option<&'a str> {
    let begin = format!("<!-- BEGIN {name} -->");
    let end = format!("<!-- END {name} -->");
    let a = doc.find(&begin)? + begin.len();
    let b = a + doc[a..].find(&end)?;
    Some(doc[a..b].trim())
}

/// Replaces (or appends) the section `name` of `doc`.
pub fn replace_section(doc: &str, name: &str, body: &str) -> String {
    let begin = format!("<!-- BEGIN {name} -->");
    let end = format!("<!-- END {name} -->");
    let block = format!("{begin}\n{}\n{end}", body.trim_end());
    match (doc.find(&begin), doc.find(&end)) {
        (Some(a), Some(b)) if b > a => format!("{}{}{}", &doc[..a], block, &doc[b + end.len()..]),
        _ => {
            let mut d = doc.trim_end().to_string();
            if !d.is_empty() {
                d += "\n\n";
            }
            d + &block + "\n"
        }
    }
}

/// A compact HTML table for the page's generated findings (`<table class="findings">`): a header
/// row and one row per entry, each cell's text as given (already escaped where needed). The
/// page's "what the measured runs show" blocks are a short sentence and such a table.
pub fn findings_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let head: String = headers.iter().map(|h| format!("<th scope=\"col\">{h}</th>")).collect();
    let body: String = rows
        .iter()
        .map(|r| format!("<tr>{}</tr>", r.iter().map(|c| format!("<td>{c}</td>")).collect::<String>()))
        .collect();
    format!("<table class=\"findings\"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
}

/// A step for a table cell, `—` when there is none.
pub fn step(s: Option<usize>) -> String {
    s.map_or("—".into(), |v| v.to_string())
}

/// A step range `a–b` for a table cell, `—` when there is none.
pub fn span(p: Option<(usize, usize)>) -> String {
    p.map_or("—".to_string(), |(a, b)| format!("{a}–{b}"))
}

/// A model's configuration in one line, as the generated sections state it: layers, heads,
/// widths, batch, learning rate, weight decay, steps and the evaluation's cadence and size.
pub fn model_line(cfg: &crate::config::RunConfig) -> String {
    format!(
        "{} layer(s), {} head(s), d {}, d_ff {}, batch {}{}, lr {}, weight decay {}, {} steps, evaluation every {} steps on {} fresh samples{}",
        cfg.layers,
        cfg.heads,
        cfg.d_model,
        cfg.d_ff,
        cfg.batch,
        // Sharded steps (`train::shards`): the batch's gradient as a sum of slices.
        if cfg.shards > 1 { format!(" in {} shards", cfg.shards) } else { String::new() },
        cfg.lr,
        cfg.weight_decay,
        cfg.steps,
        cfg.eval_every,
        cfg.eval_batch,
        if cfg.experiment == crate::config::Task::Anchors { " per subset" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_summary_reports_flat_stretches() {
        let pts: Vec<(f64, f64)> = vec![(0.0, 2.89), (20.0, 2.64), (40.0, 2.63), (60.0, 2.635), (80.0, 2.63)];
        assert_eq!(series_summary("loss", &pts, 2), "loss 2.63 at step 80, flat for the last 60 steps.");
        let pts = vec![(0.0, 0.1), (10.0, 0.5), (20.0, 0.9)];
        assert_eq!(series_summary("APM", &pts, 2), "APM 0.90 at step 20, rising.");
        assert_eq!(series_summary("APM", &[], 2), "No APM recorded yet.");
    }

    #[test]
    fn sections_are_replaced_in_place() {
        let d = replace_section("# R\n", "a", "one");
        let d = replace_section(&d, "b", "two");
        let d = replace_section(&d, "a", "three");
        assert_eq!(d, "# R\n\n<!-- BEGIN a -->\nthree\n<!-- END a -->\n\n<!-- BEGIN b -->\ntwo\n<!-- END b -->\n");
    }
}
