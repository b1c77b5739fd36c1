//! `flamegraph.svg`: a flame graph of the profile drawn by the `inferno`
//! crate from the folded lines of one metric ([`super::folded`]): for time,
//! self time per node, so a frame's width is its inclusive time; for calls,
//! each node's count, so a frame's width is the calls in its subtree.
//! JDK frames are drawn in cool colours, application frames in warm ones
//! (by the caller's JDK predicate), each shade fixed by the frame name, so
//! the same profile always gives the same picture.

use std::io::Write;

use inferno::flamegraph::color::{Color, PaletteMap};

use super::{folded, Cct, Metric, Options};

/// Writes the flame graph of `cct` for [`Options::flame_metric`].
pub fn write(cct: &Cct, options: &Options<'_>, w: &mut dyn Write) -> std::io::Result<()> {
    let metric = options.flame_metric(cct);
    let lines: Vec<String> = folded::lines(cct, metric)
        .into_iter()
        .map(|(path, v)| format!("{path} {v}"))
        .collect();
    let mut palette = PaletteMap::default();
    for frame in &cct.frames {
        palette.insert(frame, colour(frame, (options.is_jdk)(frame)));
    }
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = options.title.clone();
    opts.subtitle = Some(match metric {
        Metric::Calls => "width: calls in the subtree".to_string(),
        Metric::Wall => "width: inclusive wall time (ns)".to_string(),
        Metric::Cpu => "width: inclusive CPU time (ns)".to_string(),
    });
    opts.count_name = metric.unit().to_string();
    opts.name_type = "Method:".to_string();
    opts.deterministic = true;
    opts.palette_map = Some(&mut palette);
    if lines.is_empty() {
        // inferno refuses an empty profile: draw an explicit empty picture.
        return write!(
            w,
            "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"1200\" height=\"60\" \
             xmlns=\"http://www.w3.org/2000/svg\"><text x=\"600\" y=\"30\" text-anchor=\"middle\">{}: \
             no samples</text></svg>\n",
            escape(&options.title)
        );
    }
    inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), w)
        .map_err(std::io::Error::other)
}

/// A frame's colour: blue to green for the JDK, red to yellow for the
/// application, the shade from a hash of the name.
fn colour(frame: &str, jdk: bool) -> Color {
    let h = frame.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    });
    let a = (h % 64) as u8;
    let b = ((h >> 8) % 64) as u8;
    if jdk {
        Color {
            r: 80 + a,
            g: 150 + b,
            b: 220,
        }
    } else {
        Color {
            r: 230,
            g: 100 + a + b,
            b: 40 + a / 2,
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    fn svg(cct: &Cct, metric: Option<Metric>) -> String {
        let options = Options {
            title: "a <test> & profile".into(),
            flame_metric: metric,
            ..Options::default()
        };
        let mut out = Vec::new();
        write(cct, &options, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Parses XML; inferno's SVG has a DOCTYPE, which roxmltree refuses by default.
    fn parse_xml(text: &str) -> Result<roxmltree::Document<'_>, roxmltree::Error> {
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        };
        roxmltree::Document::parse_with_options(text, options)
    }

    #[test]
    fn the_svg_is_well_formed_and_names_the_frames() {
        for metric in [None, Some(Metric::Calls), Some(Metric::Cpu)] {
            let text = svg(&sample(), metric);
            let doc =
                parse_xml(&text).unwrap_or_else(|e| panic!("{metric:?}: not well-formed XML: {e}"));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            let titles: Vec<&str> = doc
                .descendants()
                .filter(|n| n.has_tag_name("title"))
                .filter_map(|n| n.text())
                .collect();
            // Every frame is drawn (each is wide enough in this small tree).
            for frame in &sample().frames {
                assert!(
                    titles.iter().any(|t| t.starts_with(frame.as_str())),
                    "{metric:?}: {frame} not drawn"
                );
            }
            assert!(text.contains("a &lt;test&gt; &amp; profile"), "title");
        }
        // Calls: main's subtree holds 15 calls, and the unit is calls.
        let text = svg(&sample(), Some(Metric::Calls));
        assert!(
            text.contains("Main.main(java.lang.String[]) (15 calls"),
            "{}",
            &text[..text.len().min(3000)]
        );
        // Wall (the default with wall time): main is 1000 ns wide.
        let text = svg(&sample(), None);
        assert!(text.contains("Main.main(java.lang.String[]) (1,000 ns"));
    }

    #[test]
    fn an_empty_profile_gives_a_well_formed_svg() {
        let text = svg(&Cct::default(), None);
        parse_xml(&text).unwrap();
        assert!(text.contains("no samples"));
    }
}
