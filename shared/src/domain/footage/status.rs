//! The clip state machine: every status change of a clip goes through [`next`].
//!
//! ```text
//! awaiting_upload ─upload─▶ uploaded ─probe─▶ probed
//!        │                     │                │
//!        │                     └────submit──────┴──▶ submitted ─▶ processing ─▶ processed ─▶ stored
//!        │                                               │            │              │
//!        └─cancel─▶ cancelled ◀────────cancel────────────┴────────────┘              │
//!                   failed ◀──── probe failure, backend failure, store failure ──────┘
//! ```
//!
//! `failed` and `cancelled` clips may be submitted again (a new analysis generation). A
//! `processed` clip becomes `stored` once its video and overlay are in our stores; a `stored`
//! clip stays stored (a re-run of the store job is a no-op). Anything else is refused with 409
//! `clip_state_conflict`, naming the status and the event.

pub use crate::model::footage::ClipStatus;
use crate::{Error, Result};

/// What happens to a clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipEvent {
    /// Its file arrived in raw-uploads.
    UploadCompleted,
    /// ffprobe read it.
    Probed,
    /// Sent to the analysis backend.
    Submitted,
    /// The backend reports it running (any progress).
    Running,
    /// The backend finished it.
    Succeeded,
    /// Its video and overlay were copied into our stores.
    Stored,
    /// A permanent failure (probe, backend, store).
    Failed,
    /// A user cancelled it.
    Cancelled,
}

impl ClipEvent {
    fn name(self) -> &'static str {
        match self {
            ClipEvent::UploadCompleted => "upload",
            ClipEvent::Probed => "probe",
            ClipEvent::Submitted => "analyze",
            ClipEvent::Running => "progress",
            ClipEvent::Succeeded => "success",
            ClipEvent::Stored => "store",
            ClipEvent::Failed => "failure",
            ClipEvent::Cancelled => "cancel",
        }
    }
}

/// The status after `event` in status `from`, or 409 `clip_state_conflict`.
pub fn next(from: ClipStatus, event: ClipEvent) -> Result<ClipStatus> {
    use ClipEvent as E;
    use ClipStatus as S;
    let to = match (from, event) {
        (S::AwaitingUpload, E::UploadCompleted) => S::Uploaded,
        (S::Uploaded | S::Probed, E::Probed) => S::Probed,
        (S::Uploaded | S::Probed | S::Failed | S::Cancelled, E::Submitted) => S::Submitted,
        (S::Submitted | S::Processing, E::Running) => S::Processing,
        (S::Submitted | S::Processing, E::Succeeded) => S::Processed,
        (S::Processed | S::Stored, E::Stored) => S::Stored,
        (
            S::AwaitingUpload
            | S::Uploaded
            | S::Probed
            | S::Submitted
            | S::Processing
            | S::Processed,
            E::Failed,
        ) => S::Failed,
        (
            S::AwaitingUpload | S::Uploaded | S::Probed | S::Submitted | S::Processing,
            E::Cancelled,
        ) => S::Cancelled,
        _ => {
            return Err(Error::conflict(
                "clip_state_conflict",
                format!("a clip that is {from} cannot take a {}", event.name()),
            ));
        }
    };
    Ok(to)
}

#[cfg(test)]
mod tests {
    use super::{ClipEvent as E, ClipStatus as S, next};

    #[test]
    fn the_happy_path_runs_from_upload_to_stored() {
        let mut s = S::AwaitingUpload;
        for (e, want) in [
            (E::UploadCompleted, S::Uploaded),
            (E::Probed, S::Probed),
            (E::Submitted, S::Submitted),
            (E::Running, S::Processing),
            (E::Running, S::Processing),
            (E::Succeeded, S::Processed),
            (E::Stored, S::Stored),
            (E::Stored, S::Stored),
        ] {
            s = next(s, e).unwrap();
            assert_eq!(s, want, "after {e:?}");
        }
    }

    #[test]
    fn failed_and_cancelled_clips_may_be_submitted_again() {
        assert_eq!(next(S::Failed, E::Submitted).unwrap(), S::Submitted);
        assert_eq!(next(S::Cancelled, E::Submitted).unwrap(), S::Submitted);
        assert_eq!(next(S::Processing, E::Cancelled).unwrap(), S::Cancelled);
    }

    #[test]
    fn illegal_transitions_are_conflicts_with_a_code() {
        let refused = [
            (S::Stored, E::Submitted),
            (S::Processing, E::Submitted),
            (S::Stored, E::Cancelled),
            (S::Cancelled, E::Succeeded),
            (S::Failed, E::Stored),
            (S::AwaitingUpload, E::Submitted),
            (S::Uploaded, E::Stored),
            (S::Processed, E::Cancelled),
            (S::Stored, E::Failed),
        ];
        for (from, e) in refused {
            let err = next(from, e).unwrap_err();
            assert_eq!(err.code, "clip_state_conflict", "{from} + {e:?}");
        }
    }

    #[test]
    fn every_status_has_a_way_out_or_is_final() {
        // Stored is the only status nothing moves out of except a re-store.
        for s in S::ALL.iter().copied() {
            let exits = [
                E::UploadCompleted,
                E::Probed,
                E::Submitted,
                E::Running,
                E::Succeeded,
                E::Stored,
                E::Failed,
                E::Cancelled,
            ]
            .into_iter()
            .filter(|e| next(s, *e).is_ok_and(|t| t != s))
            .count();
            assert!(exits > 0 || s == S::Stored, "{s} is a dead end");
        }
    }
}
