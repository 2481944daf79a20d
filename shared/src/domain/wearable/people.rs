//! Around the capture screen: the wearer's training sessions today (for the watch), who in the
//! workspace is live now, and the coach's assigned athletes (the fallback when no one is).

use super::LIVE_TIMEOUT_SECS;
use crate::db::{Db, Id, Ts};
use crate::domain::{Actor, InWorkspace};
use crate::error::Validator;
use crate::repo::wearable;
use crate::times::TimeKind;
use crate::{Error, Result};
use chrono::{Duration, NaiveDate, TimeZone, Utc};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleItem {
    pub training_session_id: Id,
    pub org_id: Id,
    pub title: String,
    pub starts_at: Ts,
    pub ends_at: Ts,
    pub location: Option<String>,
    pub spot: Option<String>,
    /// `athlete` (on the roster: `athleteId`, `participantStatus`) or `coach`.
    pub role: String,
    pub athlete_id: Option<Id>,
    pub participant_status: Option<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    pub date: NaiveDate,
    pub from: Ts,
    pub to: Ts,
    pub items: Vec<ScheduleItem>,
}

/// The caller's training sessions overlapping `date` in their time zone (`tz_offset_min`
/// east of UTC; default today, UTC), as an athlete on the roster or as the coach.
pub async fn my_schedule(
    db: &Db,
    actor: Actor,
    date: Option<NaiveDate>,
    tz_offset_min: i64,
) -> Result<Schedule> {
    if !(-14 * 60..=14 * 60).contains(&tz_offset_min) {
        return Err(Error::field(
            "tzOffsetMinutes",
            "out_of_range",
            "must be between -840 and 840",
        ));
    }
    if let Some(d) = date {
        let mut v = Validator::new();
        v.date("date", d, TimeKind::Calendar);
        v.finish()?;
    }
    let local_now = Utc::now() + Duration::minutes(tz_offset_min);
    let date = date.unwrap_or_else(|| local_now.date_naive());
    let midnight = Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0).expect("midnight"));
    let from = Ts::from_datetime(midnight - Duration::minutes(tz_offset_min));
    let to = from.plus(Duration::days(1));
    let mut c = db.acquire().await?;
    let rows = wearable::schedule(&mut c, actor.user_id, from, to).await?;
    Ok(Schedule {
        date,
        from,
        to,
        items: rows
            .into_iter()
            .map(|r| ScheduleItem {
                training_session_id: r.id,
                org_id: r.org_id,
                title: r.title,
                starts_at: r.starts_at,
                ends_at: r.ends_at,
                location: r.location,
                spot: r.spot,
                role: if r.athlete_id.is_some() {
                    "athlete"
                } else {
                    "coach"
                }
                .into(),
                athlete_id: r.athlete_id,
                participant_status: r.participant_status,
            })
            .collect(),
    })
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveWearer {
    pub session_id: Id,
    pub athlete_id: Option<Id>,
    pub athlete_name: Option<String>,
    pub device: Option<String>,
    pub started_at: Ts,
    pub last_seen_at: Option<Ts>,
    pub training_session_id: Option<Id>,
}

fn live_since() -> Ts {
    Ts::now().minus(Duration::seconds(LIVE_TIMEOUT_SECS))
}

/// Live sessions that reported within the live timeout, most recent first.
pub async fn who_is_surfing(
    db: &Db,
    ws: &InWorkspace,
    limit: i64,
    offset: i64,
) -> Result<Vec<LiveWearer>> {
    let mut c = db.acquire().await?;
    let rows = wearable::live_sessions(&mut c, ws.org_id, live_since(), limit, offset).await?;
    let mut out = Vec::with_capacity(rows.len());
    for s in rows {
        let name = match s.athlete_id {
            Some(a) => wearable::athlete_name(&mut c, a)
                .await?
                .map(|n| format!("{} {}", n.first_name, n.last_name)),
            None => None,
        };
        out.push(LiveWearer {
            session_id: s.id,
            athlete_id: s.athlete_id,
            athlete_name: name,
            device: s.device,
            started_at: s.started_at,
            last_seen_at: s.last_seen_at,
            training_session_id: s.training_session_id,
        });
    }
    Ok(out)
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RosterAthlete {
    pub athlete_id: Id,
    pub first_name: String,
    pub last_name: String,
    /// Their live session, when they are in the water with a watch now.
    pub live_session_id: Option<Id>,
}

/// The caller's assigned (active) athletes in this workspace, by name.
pub async fn roster(
    db: &Db,
    ws: &InWorkspace,
    limit: i64,
    offset: i64,
) -> Result<Vec<RosterAthlete>> {
    let mut c = db.acquire().await?;
    let rows = wearable::roster(
        &mut c,
        ws.org_id,
        ws.actor.user_id,
        live_since(),
        limit,
        offset,
    )
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| RosterAthlete {
            athlete_id: r.athlete_id,
            first_name: r.first_name,
            last_name: r.last_name,
            live_session_id: r.live_session_id,
        })
        .collect())
}
