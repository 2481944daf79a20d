//! `/api/dedup/suggestions`: pairs of roster athletes that are probably one person, scored and
//! explained by [`super::identity::score`] like the match candidates (`docs/competition.md`,
//! "Identity and dedup"), and the dismissals that hide a pair for good.
//!
//! Only pairs that share a blocking key are compared ([`identity::candidate_pairs`]), so a
//! roster of thousands costs thousands of comparisons, not millions. Archived athletes are
//! left out (they are no longer worked on). Each suggestion names the athlete to keep and the
//! one to merge into it, for the existing merge (`POST /api/athletes/{keep}/merge/{merge}`):
//! the one with a login, else the one with more provider links, else the older record. After
//! a merge the merged-away athlete is gone and so is the pair.

use std::collections::HashSet;

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use super::identity::{self, Confidence, Evidence};
use super::matching::{RosterData, full_name};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::domain::athletes::{self, AthleteStatus};
use crate::error::{Error, Result};
use crate::repo::athletes::{self as roster, Athlete};
use crate::repo::audit;
use crate::repo::identity as ids;

/// One athlete of a suggested pair.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PairedAthlete {
    pub athlete_id: Id,
    pub name: String,
    pub email: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub status: AthleteStatus,
    /// The athlete has their own login.
    pub has_login: bool,
    /// Their provider profiles, `provider:id`.
    pub providers: Vec<String>,
    pub created_at: Ts,
}

/// Which athlete a merge keeps.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MergePlan {
    /// The athlete that stays (`{id}` of the merge route).
    pub keep_id: Id,
    /// The athlete merged into it and deleted (`{b}` of the merge route).
    pub merge_id: Id,
    /// Why the merge would be refused, when it would: `merge_conflict` (both athletes have
    /// their own login).
    pub blocked: Option<String>,
}

/// Two roster athletes that are probably one person.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    pub a: PairedAthlete,
    pub b: PairedAthlete,
    /// 0–1, at least 0.55 (`docs/competition.md`).
    pub score: f64,
    pub confidence: Confidence,
    /// Every field compared, with how much it counted.
    pub explanation: Vec<Evidence>,
    pub merge: MergePlan,
}

fn paired(a: &Athlete, data: &RosterData) -> PairedAthlete {
    PairedAthlete {
        athlete_id: a.id,
        name: full_name(a),
        email: a.email.clone(),
        birth_date: a.birth_date,
        status: a.status,
        has_login: a.user_id.is_some(),
        providers: data
            .links(a.id)
            .iter()
            .map(|l| format!("{}:{}", l.provider, l.external_id))
            .collect(),
        created_at: a.created_at,
    }
}

/// The athlete to keep: the one with a login, else more provider links, else the older.
fn plan(x: &Athlete, y: &Athlete, data: &RosterData) -> MergePlan {
    let rank = |a: &Athlete| (a.user_id.is_some(), data.links(a.id).len());
    let keep_x = match rank(x).cmp(&rank(y)) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => (x.created_at, x.id) <= (y.created_at, y.id),
    };
    let (keep, gone) = if keep_x { (x, y) } else { (y, x) };
    MergePlan {
        keep_id: keep.id,
        merge_id: gone.id,
        blocked: (keep.user_id.is_some() && gone.user_id.is_some() && keep.user_id != gone.user_id)
            .then(|| "merge_conflict".to_string()),
    }
}

/// Every suggested pair of the workspace, best first; dismissed pairs left out.
pub async fn suggestions(db: &Db, ws: &InWorkspace) -> Result<Vec<Suggestion>> {
    let mut c = db.acquire().await?;
    let roster: Vec<Athlete> = roster::all_of_org(&mut c, ws.org_id)
        .await?
        .into_iter()
        .filter(|a| a.status != AthleteStatus::Archived)
        .collect();
    let data = RosterData::load(&mut c, ws.org_id, None).await?;
    let dismissed: HashSet<(Id, Id)> = ids::dismissed(&mut c, ws.org_id)
        .await?
        .into_iter()
        .collect();
    drop(c);
    let people: Vec<identity::Person> = roster.iter().map(|a| data.person(a)).collect();
    let prepared: Vec<identity::Prepared> = people.iter().map(identity::prepare).collect();
    let mut out = Vec::new();
    for (i, j) in identity::candidate_pairs(&people) {
        let (x, y) = (&roster[i], &roster[j]);
        if dismissed.contains(&ids::ordered(x.id, y.id)) {
            continue;
        }
        let Some(s) = identity::score_at_least(&prepared[i], &prepared[j], identity::DEDUP_MIN)
        else {
            continue;
        };
        // The older record first, so a pair reads the same every time.
        let (x, y) = if (x.created_at, x.id) <= (y.created_at, y.id) {
            (x, y)
        } else {
            (y, x)
        };
        out.push(Suggestion {
            a: paired(x, &data),
            b: paired(y, &data),
            score: s.score,
            confidence: s.confidence,
            explanation: s.explanation,
            merge: plan(x, y, &data),
        });
    }
    out.sort_by(|p, q| {
        q.score
            .total_cmp(&p.score)
            .then_with(|| p.a.name.cmp(&q.a.name))
            .then_with(|| p.b.name.cmp(&q.b.name))
            .then(p.a.athlete_id.cmp(&q.a.athlete_id))
            .then(p.b.athlete_id.cmp(&q.b.athlete_id))
    });
    Ok(out)
}

/// Hides the pair from the suggestions for good (both must be the workspace's athletes: 404
/// otherwise; the same athlete twice is 400 `validation_failed`). Dismissing twice changes
/// nothing.
pub async fn dismiss(db: &Db, ws: &InWorkspace, a: Id, b: Id) -> Result<bool> {
    if a == b {
        return Err(Error::field(
            "b",
            "invalid",
            "a suggestion pairs two different athletes",
        ));
    }
    let mut tx = db.begin().await?;
    let x = athletes::load(&mut tx, ws.org_id, a).await?;
    let y = athletes::load(&mut tx, ws.org_id, b).await?;
    let (first, second) = ids::ordered(x.id, y.id);
    let added = ids::dismiss(
        &mut tx,
        ws.org_id,
        first,
        second,
        Some(ws.actor.user_id),
        Ts::now(),
    )
    .await?;
    if added {
        audit::record(
            &mut tx,
            ws.audit(
                "dedup.dismissed",
                "athlete",
                first,
                json!({ "athletes": [first, second] }),
            ),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(added)
}
