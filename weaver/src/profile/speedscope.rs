//! `speedscope.json`: the profile in speedscope's own file format
//! (`https://www.speedscope.app/file-format-schema.json`), one "sampled"
//! profile per metric: a sample per node (its stack of frame indices,
//! outermost first) weighted by the node's self value (calls: its count,
//! unit "none"; time: its self time, unit "nanoseconds"), so speedscope's
//! views show inclusive values. The profiles come calls first, then wall,
//! then CPU time; `activeProfileIndex` points at wall time when there is
//! some. Samples are in the bytewise order of the folded files' paths.

use std::io::Write;

use serde::Serialize;

use super::{Cct, Metric};

/// The speedscope file-format schema URL, its required `$schema` value.
pub const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

#[derive(Serialize)]
struct File<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    shared: Shared<'a>,
    profiles: Vec<Profile>,
    name: &'a str,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: usize,
    exporter: String,
}

#[derive(Serialize)]
struct Shared<'a> {
    frames: Vec<Frame<'a>>,
}

#[derive(Serialize)]
struct Frame<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct Profile {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
    unit: &'static str,
    #[serde(rename = "startValue")]
    start_value: u64,
    #[serde(rename = "endValue")]
    end_value: u64,
    samples: Vec<Vec<usize>>,
    weights: Vec<u64>,
}

/// Writes `cct` as a speedscope file named `name`.
pub fn write(cct: &Cct, name: &str, w: &mut dyn Write) -> std::io::Result<()> {
    // Each node's stack of frame indices, built parents first.
    let mut stacks: Vec<Vec<usize>> = Vec::with_capacity(cct.nodes.len());
    for n in &cct.nodes {
        let mut s = n.parent.map_or_else(Vec::new, |p| stacks[p].clone());
        s.push(n.frame);
        stacks.push(s);
    }
    // Samples in the bytewise order of the folded files.
    let paths = cct.paths();
    let mut order: Vec<usize> = (0..cct.nodes.len()).collect();
    order.sort_unstable_by(|&a, &b| paths[a].as_bytes().cmp(paths[b].as_bytes()));
    let metrics = cct.metrics();
    let profiles = metrics
        .iter()
        .map(|&metric| {
            let own = cct.self_values(metric);
            let chosen: Vec<usize> = order.iter().copied().filter(|&i| own[i] > 0).collect();
            let weights: Vec<u64> = chosen.iter().map(|&i| own[i]).collect();
            Profile {
                kind: "sampled",
                name: match metric {
                    Metric::Calls => format!("{name}: calls"),
                    Metric::Wall => format!("{name}: wall time"),
                    Metric::Cpu => format!("{name}: CPU time"),
                },
                unit: if metric == Metric::Calls {
                    "none"
                } else {
                    "nanoseconds"
                },
                start_value: 0,
                end_value: weights.iter().sum(),
                samples: chosen.iter().map(|&i| stacks[i].clone()).collect(),
                weights,
            }
        })
        .collect();
    let file = File {
        schema: SCHEMA,
        shared: Shared {
            frames: cct.frames.iter().map(|f| Frame { name: f }).collect(),
        },
        profiles,
        name,
        active_profile_index: metrics.iter().position(|&m| m == Metric::Wall).unwrap_or(0),
        exporter: format!("major {}", env!("CARGO_PKG_VERSION")),
    };
    serde_json::to_writer(&mut *w, &file).map_err(std::io::Error::other)?;
    writeln!(w)
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;
    use serde_json::Value;

    #[test]
    fn has_the_fields_speedscope_requires() {
        let cct = sample();
        let mut out = Vec::new();
        write(&cct, "sample", &mut out).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["$schema"], SCHEMA);
        let frames = v["shared"]["frames"].as_array().unwrap();
        assert_eq!(frames.len(), cct.frames.len());
        assert!(frames.iter().all(|f| f["name"].is_string()));
        let profiles = v["profiles"].as_array().unwrap();
        assert_eq!(profiles.len(), 3);
        assert_eq!(v["activeProfileIndex"], 1, "wall time shown first");
        for p in profiles {
            assert_eq!(p["type"], "sampled");
            for key in [
                "name",
                "unit",
                "startValue",
                "endValue",
                "samples",
                "weights",
            ] {
                assert!(!p[key].is_null(), "{key} missing in {p}");
            }
            let samples = p["samples"].as_array().unwrap();
            let weights = p["weights"].as_array().unwrap();
            assert_eq!(samples.len(), weights.len());
            let sum: u64 = weights.iter().map(|w| w.as_u64().unwrap()).sum();
            assert_eq!(p["endValue"].as_u64().unwrap(), sum);
            for s in samples {
                for f in s.as_array().unwrap() {
                    assert!((f.as_u64().unwrap() as usize) < frames.len());
                }
            }
        }
        let calls = &profiles[0];
        assert_eq!(calls["unit"], "none");
        assert_eq!(calls["endValue"], 1 + 2 + 10 + 1 + 1 + 3 + 3);
        // The first sample is main itself: one frame, weight 1.
        let main = frames
            .iter()
            .position(|f| f["name"] == "Main.main(java.lang.String[])")
            .unwrap();
        assert_eq!(calls["samples"][0], serde_json::json!([main]));
        assert_eq!(profiles[1]["unit"], "nanoseconds");
        assert_eq!(profiles[1]["endValue"], 1000 + 700);
    }
}
