//! `/api/identity/links`: a member's decisions on match candidates (`docs/competition.md`,
//! "Identity and dedup"). Confirming links the profile to the athlete through the import's own
//! code ([`roster::import_then`] with the athlete given: the same rules, the same 409s, the
//! profile and its results stored); rejecting remembers that the profile is not the athlete,
//! so the match never offers it again; removing undoes either. Each is audited in its
//! transaction.

use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use super::roster::{self, Importer, Providers, Source};
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::domain::athletes;
use crate::error::{Error, Result, Validator};
use crate::repo::audit;
use crate::repo::competition as repo;
use crate::repo::identity::{self as ids, LinkRow, Rejection};

crate::text_enum! {
    /// A decision on a profile: a link, or a rejection.
    pub enum LinkStatus { Linked = "linked", Rejected = "rejected" }
}

crate::text_enum! {
    /// What a member decides about a candidate.
    pub enum Decision { Confirm = "confirm", Reject = "reject" }
}

/// A link or a rejection, as listed.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkView {
    /// The link's id, or the rejection's.
    pub id: Id,
    pub athlete_id: Id,
    pub athlete_name: String,
    pub source: String,
    pub external_id: String,
    pub status: LinkStatus,
    /// The profile's name: as last read for a link, as it was shown for a rejection.
    pub name: Option<String>,
    /// The profile's country as last read (links).
    pub country: Option<String>,
    /// What the candidate scored when it was rejected, as the client sent it.
    pub score: Option<f64>,
    /// When the linked profile was last read.
    pub synced_at: Option<Ts>,
    pub created_at: Ts,
}

fn athlete_name(first: &str, last: &str) -> String {
    format!("{} {}", first.trim(), last.trim())
        .trim()
        .to_string()
}

impl From<LinkRow> for LinkView {
    fn from(l: LinkRow) -> Self {
        let field = |k: &str| {
            l.data
                .as_ref()
                .and_then(|d| d.0.get(k))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        LinkView {
            id: l.id,
            athlete_id: l.athlete_id,
            athlete_name: athlete_name(&l.first_name, &l.last_name),
            name: field("name"),
            country: field("country"),
            source: l.provider.to_string(),
            external_id: l.external_id,
            status: LinkStatus::Linked,
            score: None,
            synced_at: l.synced_at,
            created_at: l.created_at,
        }
    }
}

impl From<Rejection> for LinkView {
    fn from(r: Rejection) -> Self {
        LinkView {
            id: r.id,
            athlete_id: r.athlete_id,
            athlete_name: athlete_name(&r.first_name, &r.last_name),
            source: r.provider.to_string(),
            external_id: r.external_id,
            status: LinkStatus::Rejected,
            name: r.name,
            country: None,
            score: r.score,
            synced_at: None,
            created_at: r.created_at,
        }
    }
}

/// Which decisions to list: one athlete's or the workspace's, one provider's or all, links
/// (default) or rejections.
#[derive(Clone, Debug)]
pub struct LinkFilter {
    pub athlete: Option<Id>,
    pub source: Option<Source>,
    pub status: LinkStatus,
}

impl LinkFilter {
    pub fn parse(athlete: Option<Id>, source: Option<&str>, status: Option<&str>) -> Result<Self> {
        let mut v = Validator::new();
        let source = source.and_then(|s| v.choice_of::<Source>("source", s));
        let status = match status {
            None => Some(LinkStatus::Linked),
            Some(s) => v.choice_of::<LinkStatus>("status", s),
        };
        v.finish()?;
        Ok(LinkFilter {
            athlete,
            source,
            status: status.unwrap_or(LinkStatus::Linked),
        })
    }
}

/// A page of the workspace's links or rejections, newest first (404 for an athlete that is
/// not the workspace's).
pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    f: &LinkFilter,
    limit: i64,
    offset: i64,
) -> Result<Vec<LinkView>> {
    let mut c = db.acquire().await?;
    if let Some(a) = f.athlete {
        athletes::load(&mut c, ws.org_id, a).await?;
    }
    let source = f.source;
    Ok(match f.status {
        LinkStatus::Linked => ids::list_links(&mut c, ws.org_id, f.athlete, source, limit, offset)
            .await?
            .into_iter()
            .map(LinkView::from)
            .collect(),
        LinkStatus::Rejected => {
            ids::list_rejections(&mut c, ws.org_id, f.athlete, source, limit, offset)
                .await?
                .into_iter()
                .map(LinkView::from)
                .collect()
        }
    })
}

/// A decision as received.
#[derive(Clone, Debug)]
pub struct LinkDecision {
    pub athlete: Id,
    pub source: Source,
    pub external_id: String,
    pub decision: Decision,
    /// A rejection's label: the candidate's name as shown.
    pub name: Option<String>,
    /// A rejection's label: the candidate's score as shown (0–1).
    pub score: Option<f64>,
}

impl LinkDecision {
    /// Parses every field at once (`validation_failed` lists each bad one); `decision`
    /// defaults to `confirm`.
    pub fn parse(
        athlete: Id,
        source: &str,
        external_id: &str,
        decision: Option<&str>,
        name: Option<&str>,
        score: Option<f64>,
    ) -> Result<Self> {
        let mut v = Validator::new();
        let source = v.choice_of::<Source>("source", source);
        let external_id = v.text("externalId", external_id, 100);
        let decision = match decision {
            None => Some(Decision::Confirm),
            Some(d) => v.choice_of::<Decision>("decision", d),
        };
        let name = name.map(|n| v.text("name", n, 200));
        if let Some(s) = score {
            v.check(
                (0.0..=1.0).contains(&s),
                "score",
                "out_of_range",
                "must be between 0 and 1",
            );
        }
        v.finish()?;
        Ok(LinkDecision {
            athlete,
            source: source.unwrap_or(Source::Heatsource),
            external_id,
            decision: decision.unwrap_or(Decision::Confirm),
            name,
            score,
        })
    }
}

/// What a decision did: the link or rejection, and whether it is new (false: it was already
/// so, nothing changed).
#[derive(Clone, Debug)]
pub struct Decided {
    pub view: LinkView,
    pub created: bool,
}

/// Applies a decision: [`confirm`] or [`reject`].
pub async fn decide(
    db: &Db,
    p: Providers<'_>,
    ws: &InWorkspace,
    d: &LinkDecision,
) -> Result<Decided> {
    match d.decision {
        Decision::Confirm => confirm(db, p, ws, d).await,
        Decision::Reject => reject(db, ws, d).await,
    }
}

/// Links the profile to the athlete as the import does with `athleteId` given: the profile is
/// read from its provider now (404 `not_found` when the provider does not know it), the link
/// made (409 `already_linked` when another athlete of the workspace holds the profile, 409
/// `athlete_already_linked` when the athlete has another profile of this provider), the
/// profile and its results stored; a rejection of the profile for the athlete is forgotten.
/// Confirming a link that exists changes nothing.
pub async fn confirm(
    db: &Db,
    p: Providers<'_>,
    ws: &InWorkspace,
    d: &LinkDecision,
) -> Result<Decided> {
    {
        let mut c = db.acquire().await?;
        athletes::load(&mut c, ws.org_id, d.athlete).await?;
    }
    let profile = roster::fetch_profile(db, p, d.source, &d.external_id)
        .await
        .map_err(Error::from)?
        .ok_or_else(|| Error::not_found("profile"))?;
    let (source, athlete, score) = (d.source, d.athlete, d.score);
    let done = roster::import_then(
        db,
        &Importer::from(ws),
        &profile,
        Some(d.athlete),
        None,
        &|tx, done| {
            let (ws, external_id, linked) = (ws.clone(), d.external_id.clone(), done.linked);
            Box::pin(async move {
                let forgot = ids::delete_rejection(&mut *tx, athlete, source, &external_id).await?;
                if linked {
                    audit::record(
                        &mut *tx,
                        ws.audit(
                            "identity.link_confirmed",
                            "athlete",
                            athlete,
                            json!({ "source": source, "externalId": external_id,
                                    "score": score, "rejectionForgotten": forgot > 0 }),
                        ),
                    )
                    .await?;
                }
                Ok(())
            })
        },
    )
    .await?;
    let mut c = db.acquire().await?;
    let link = repo::link(&mut c, ws.org_id, d.source, &profile.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the confirmed link is missing")))?;
    let row = ids::link_row(&mut c, link.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the confirmed link is missing")))?;
    Ok(Decided {
        view: row.into(),
        created: done.linked,
    })
}

/// Remembers that the profile is not the athlete (409 `link_exists` when the athlete is linked
/// to it: remove the link first). Rejecting twice keeps the first rejection.
pub async fn reject(db: &Db, ws: &InWorkspace, d: &LinkDecision) -> Result<Decided> {
    let mut tx = db.begin().await?;
    let a = athletes::load(&mut tx, ws.org_id, d.athlete).await?;
    if repo::link(&mut tx, ws.org_id, d.source, &d.external_id)
        .await?
        .is_some_and(|l| l.athlete_id == a.id)
    {
        return Err(Error::conflict(
            "link_exists",
            "the athlete is linked to this profile; remove the link before rejecting it",
        ));
    }
    let created = ids::reject(
        &mut tx,
        ws.org_id,
        a.id,
        d.source,
        &d.external_id,
        d.name.as_deref(),
        d.score,
        ws.actor.user_id,
        Ts::now(),
    )
    .await?;
    if created {
        audit::record(
            &mut tx,
            ws.audit(
                "identity.link_rejected",
                "athlete",
                a.id,
                json!({ "source": d.source, "externalId": d.external_id, "score": d.score }),
            ),
        )
        .await?;
    }
    let row = ids::rejection(&mut tx, a.id, d.source, &d.external_id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the rejection is missing")))?;
    tx.commit().await?;
    Ok(Decided {
        view: row.into(),
        created,
    })
}

/// Removes the athlete's decision on the profile: the link (with the results it brought,
/// unless another link of that provider remains), or the rejection (the profile may be
/// offered again). 404 when there is neither.
pub async fn remove(
    db: &Db,
    ws: &InWorkspace,
    athlete: Id,
    source: &str,
    external_id: &str,
) -> Result<LinkStatus> {
    let mut v = Validator::new();
    let source = v.choice_of::<Source>("source", source);
    let external_id = v.text("externalId", external_id, 100);
    v.finish()?;
    let source = source.unwrap_or(Source::Heatsource);
    let mut tx = db.begin().await?;
    let a = athletes::load(&mut tx, ws.org_id, athlete).await?;
    let status = match repo::link(&mut tx, ws.org_id, source, &external_id).await? {
        Some(l) if l.athlete_id == a.id => {
            ids::delete_link(&mut tx, ws.org_id, l.id).await?;
            let results = if repo::links_of(&mut tx, a.id)
                .await?
                .iter()
                .any(|o| o.provider == source)
            {
                0
            } else {
                ids::delete_results(&mut tx, a.id, source).await?
            };
            audit::record(
                &mut tx,
                ws.audit(
                    "identity.link_removed",
                    "athlete",
                    a.id,
                    json!({ "source": source, "externalId": external_id, "resultsRemoved": results }),
                ),
            )
            .await?;
            LinkStatus::Linked
        }
        _ => {
            if ids::delete_rejection(&mut tx, a.id, source, &external_id).await? == 0 {
                return Err(Error::not_found("link"));
            }
            audit::record(
                &mut tx,
                ws.audit(
                    "identity.rejection_removed",
                    "athlete",
                    a.id,
                    json!({ "source": source, "externalId": external_id }),
                ),
            )
            .await?;
            LinkStatus::Rejected
        }
    };
    tx.commit().await?;
    Ok(status)
}
