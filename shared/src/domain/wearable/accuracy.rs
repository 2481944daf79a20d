//! Detector accuracy against ground truth: a detected window matches a true ride when their
//! temporal intersection over union is at least [`MIN_IOU`]; matching is one to one, best
//! pairs first. Precision = matched / detected, recall = matched / true, F1 their harmonic mean.

use serde::Serialize;

pub const MIN_IOU: f64 = 0.5;

/// Intersection over union of two time windows.
pub fn iou(a: (i64, i64), b: (i64, i64)) -> f64 {
    let inter = (a.1.min(b.1) - a.0.max(b.0)).max(0) as f64;
    let union = (a.1.max(b.1) - a.0.min(b.0)).max(1) as f64;
    inter / union
}

/// Counts of one comparison (sums of several add up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    pub true_positives: u64,
    pub false_positives: u64,
    pub false_negatives: u64,
}

impl Score {
    pub fn add(&mut self, o: Score) {
        self.true_positives += o.true_positives;
        self.false_positives += o.false_positives;
        self.false_negatives += o.false_negatives;
    }

    /// 1 when nothing was detected (nothing wrong was claimed).
    pub fn precision(&self) -> f64 {
        let d = self.true_positives + self.false_positives;
        if d == 0 {
            1.0
        } else {
            self.true_positives as f64 / d as f64
        }
    }

    /// 1 when there was nothing to find.
    pub fn recall(&self) -> f64 {
        let t = self.true_positives + self.false_negatives;
        if t == 0 {
            1.0
        } else {
            self.true_positives as f64 / t as f64
        }
    }

    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

/// Scores `detected` against `truth` (both lists of `(start, end)`).
pub fn score(truth: &[(i64, i64)], detected: &[(i64, i64)]) -> Score {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, t) in truth.iter().enumerate() {
        for (j, d) in detected.iter().enumerate() {
            let v = iou(*t, *d);
            if v >= MIN_IOU {
                pairs.push((v, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut used_t = vec![false; truth.len()];
    let mut used_d = vec![false; detected.len()];
    let mut tp = 0;
    for (_, i, j) in pairs {
        if !used_t[i] && !used_d[j] {
            used_t[i] = true;
            used_d[j] = true;
            tp += 1;
        }
    }
    Score {
        true_positives: tp,
        false_positives: detected.len() as u64 - tp,
        false_negatives: truth.len() as u64 - tp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_match_at_half_overlap_one_to_one() {
        assert_eq!(iou((0, 10), (0, 10)), 1.0);
        assert_eq!(iou((0, 10), (5, 15)), 5.0 / 15.0);
        assert_eq!(iou((0, 10), (20, 30)), 0.0);
        let s = score(
            &[(0, 10_000), (20_000, 30_000)],
            &[(1000, 10_000), (2000, 9000), (50_000, 51_000)],
        );
        assert_eq!(
            s,
            Score {
                true_positives: 1,
                false_positives: 2,
                false_negatives: 1
            }
        );
        assert!((s.precision() - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.recall() - 0.5).abs() < 1e-9);
    }
}
