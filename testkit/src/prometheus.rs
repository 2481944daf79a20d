//! Reads a Prometheus text-format scrape (`GET /metrics` of a process started with
//! `METRICS_ADDR`), so tests can assert what a counter, gauge or histogram holds.

use std::collections::BTreeMap;

/// One scrape: every sample by metric name and label set.
#[derive(Debug, Clone, Default)]
pub struct Scrape {
    samples: BTreeMap<String, f64>,
    pub text: String,
}

fn key(name: &str, labels: &[(&str, &str)]) -> String {
    let mut l: Vec<(&str, &str)> = labels.to_vec();
    l.sort();
    let l: Vec<String> = l.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}|{}", l.join(","))
}

impl Scrape {
    /// Parses the text format (label values must not contain `,` or `"`; ours do not).
    pub fn parse(text: &str) -> Scrape {
        let mut samples = BTreeMap::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((series, value)) = line.rsplit_once(' ') else {
                continue;
            };
            let Ok(value) = value.parse::<f64>() else {
                continue;
            };
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => (name, rest.trim_end_matches('}')),
                None => (series, ""),
            };
            let labels: Vec<(&str, &str)> = labels
                .split(',')
                .filter(|l| !l.is_empty())
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k, v.trim_matches('"')))
                .collect();
            samples.insert(key(name, &labels), value);
        }
        Scrape {
            samples,
            text: text.to_string(),
        }
    }

    /// Fetches and parses `url` (expects 200).
    pub async fn fetch(url: &str) -> Scrape {
        let r = reqwest::get(url).await.expect("metrics endpoint reachable");
        assert_eq!(r.status(), 200, "GET {url}");
        let ct = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        assert!(ct.starts_with("text/plain"), "content type {ct}");
        Scrape::parse(&r.text().await.unwrap())
    }

    /// The sample's value, or `None` when the series does not exist.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.samples.get(&key(name, labels)).copied()
    }

    /// The sample's value, 0 when absent (a counter never incremented is not rendered).
    pub fn get(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.value(name, labels).unwrap_or(0.0)
    }

    /// How much a series grew since `before`.
    pub fn delta(&self, before: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.get(name, labels) - before.get(name, labels)
    }

    /// Whether any series of metric `name` exists.
    pub fn has(&self, name: &str) -> bool {
        let prefix = format!("{name}|");
        self.samples.keys().any(|k| k.starts_with(&prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_labelled_and_plain_samples() {
        let s = Scrape::parse(
            "# TYPE a counter\na{queue=\"default\",kind=\"x.y\"} 3\nb 1.5\nc_bucket{le=\"0.5\",route=\"/api/jobs/{id}\"} 2\n",
        );
        assert_eq!(s.get("a", &[("kind", "x.y"), ("queue", "default")]), 3.0);
        assert_eq!(s.get("b", &[]), 1.5);
        assert_eq!(
            s.value("c_bucket", &[("route", "/api/jobs/{id}"), ("le", "0.5")]),
            Some(2.0)
        );
        assert_eq!(s.value("a", &[("kind", "x.y")]), None);
        assert!(s.has("a") && !s.has("d"));
    }
}
