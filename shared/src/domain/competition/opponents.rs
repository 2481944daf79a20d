//! A coach's notes on opponents (`/api/opponents`): an opponent is a provider athlete (provider
//! and the provider's id, with a name) or a roster athlete; a note has free text, lists of
//! strengths, weaknesses and tags, and optionally the roster athlete it is for (the one who
//! will face that opponent). Several notes on one opponent are allowed (a scouting log). The
//! opponent cannot be changed after creation (delete and write a new note). Suggestions of
//! whom to scout, with head-to-head records, are [`super::headtohead`].

use serde::Serialize;
use serde_json::json;
use sqlx::types::Json;
use utoipa::ToSchema;

use super::events::Patch;
use super::roster::Source;
use crate::db::{Db, Id, Ts};
use crate::domain::InWorkspace;
use crate::error::{Error, Result, Validator};
use crate::repo::audit;
use crate::repo::opponents::{self as repo, NoteFilter, NoteRow};

/// At most this many strengths, weaknesses or tags per note.
pub const MAX_ITEMS: usize = 20;
/// A note's text, at most.
pub const MAX_BODY: usize = 10_000;

/// Who the opponent is.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Opponent {
    /// A roster athlete of the workspace.
    pub athlete_id: Option<Id>,
    /// A provider athlete: the provider (heatsource, tourindex) and its id.
    pub provider: Option<Source>,
    pub external_id: Option<String>,
    /// A roster athlete's current name, or the provider athlete's name as given.
    pub name: String,
}

/// A note as members see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteView {
    pub id: Id,
    /// The roster athlete the note is for (who will face the opponent), if any.
    pub athlete_id: Option<Id>,
    pub opponent: Opponent,
    pub body: String,
    pub strengths: Vec<String>,
    pub weaknesses: Vec<String>,
    pub tags: Vec<String>,
    pub created_by: Option<Id>,
    pub updated_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

impl From<NoteRow> for NoteView {
    fn from(n: NoteRow) -> Self {
        NoteView {
            id: n.id,
            athlete_id: n.athlete_id,
            opponent: Opponent {
                athlete_id: n.opponent_athlete_id,
                provider: n.opponent_provider,
                external_id: n.opponent_external_id,
                name: n.opponent_name,
            },
            body: n.body,
            strengths: n.strengths.0,
            weaknesses: n.weaknesses.0,
            tags: n.tags.0,
            created_by: n.created_by,
            updated_by: n.updated_by,
            created_at: n.created_at,
            updated_at: n.updated_at,
        }
    }
}

/// The opponent of a new note, as sent.
#[derive(Clone, Debug, Default)]
pub struct RawOpponent {
    pub athlete_id: Option<Id>,
    pub provider: Option<String>,
    pub external_id: Option<String>,
    pub name: Option<String>,
}

/// A new note or a change, as sent (`Patch::Absent`: unchanged; `Clear`: null).
#[derive(Clone, Debug, Default)]
pub struct NoteFields {
    pub athlete_id: Patch<Id>,
    pub body: Patch<String>,
    pub strengths: Patch<Vec<String>>,
    pub weaknesses: Patch<Vec<String>>,
    pub tags: Patch<Vec<String>>,
}

enum Who {
    Roster(Id),
    Provider(Source, String, String),
}

fn parse_opponent(v: &mut Validator, o: &RawOpponent) -> Option<Who> {
    match (o.athlete_id, &o.provider, &o.external_id) {
        (Some(id), None, None) => Some(Who::Roster(id)),
        (None, Some(p), Some(ext)) => {
            let source = v.choice_of::<Source>("opponent.provider", p);
            let ext = v.text("opponent.externalId", ext, 100);
            let name = match &o.name {
                Some(n) => v.text("opponent.name", n, 200),
                None => {
                    v.add(
                        "opponent.name",
                        "required",
                        "a provider opponent needs a name",
                    );
                    String::new()
                }
            };
            source.map(|s| Who::Provider(s, ext, name))
        }
        _ => {
            v.add(
                "opponent",
                "invalid",
                "name the opponent by athleteId, or by provider and externalId (with a name)",
            );
            None
        }
    }
}

/// A list of short strings: each trimmed, 1–`max` characters, at most [`MAX_ITEMS`], duplicates
/// dropped (first kept).
fn items(v: &mut Validator, field: &str, list: &[String], max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if list.len() > MAX_ITEMS {
        v.add(
            field,
            "out_of_range",
            format!("at most {MAX_ITEMS} entries"),
        );
        return out;
    }
    for s in list {
        let s = s.trim();
        if s.is_empty() || s.chars().count() > max {
            v.add(
                field,
                "invalid",
                format!("each entry is 1-{max} characters"),
            );
            return Vec::new();
        }
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

/// Tags: lower-cased, 1–40 characters of a-z, 0-9, `-` and `_`.
fn tags(v: &mut Validator, list: &[String]) -> Vec<String> {
    let lowered: Vec<String> = list.iter().map(|t| t.trim().to_lowercase()).collect();
    let out = items(v, "tags", &lowered, 40);
    if out.iter().any(|t| {
        !t.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    }) {
        v.add(
            "tags",
            "invalid",
            "a tag is 1-40 characters of a-z, 0-9, - and _",
        );
    }
    out
}

fn body(v: &mut Validator, b: &str) -> String {
    let b = b.trim();
    if b.chars().count() > MAX_BODY {
        v.add(
            "body",
            "too_long",
            format!("must be at most {MAX_BODY} characters"),
        );
    }
    b.to_string()
}

/// The checked fields of a note (absent or cleared lists are empty, a cleared body is empty).
struct Checked {
    athlete_id: Patch<Id>,
    body: Option<String>,
    strengths: Option<Vec<String>>,
    weaknesses: Option<Vec<String>>,
    tags: Option<Vec<String>>,
}

fn check(v: &mut Validator, f: &NoteFields) -> Checked {
    let list = |v: &mut Validator, field: &str, p: &Patch<Vec<String>>| match p {
        Patch::Absent => None,
        Patch::Clear => Some(Vec::new()),
        Patch::Set(l) => Some(items(v, field, l, 100)),
    };
    Checked {
        athlete_id: f.athlete_id.clone(),
        body: match &f.body {
            Patch::Absent => None,
            Patch::Clear => Some(String::new()),
            Patch::Set(b) => Some(body(v, b)),
        },
        strengths: list(v, "strengths", &f.strengths),
        weaknesses: list(v, "weaknesses", &f.weaknesses),
        tags: match &f.tags {
            Patch::Absent => None,
            Patch::Clear => Some(Vec::new()),
            Patch::Set(l) => Some(tags(v, l)),
        },
    }
}

async fn athlete_of(
    x: &mut crate::db::Tx,
    ws: &InWorkspace,
    id: Id,
) -> Result<crate::repo::athletes::Athlete> {
    crate::repo::athletes::get(x, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))
}

/// Writes a new note (`athleteId` and a roster opponent must be the workspace's: else 404).
pub async fn create(
    db: &Db,
    ws: &InWorkspace,
    opponent: &RawOpponent,
    fields: &NoteFields,
) -> Result<NoteView> {
    let mut v = Validator::new();
    let who = parse_opponent(&mut v, opponent);
    let c = check(&mut v, fields);
    v.finish()?;
    let Some(who) = who else {
        return Err(Error::field("opponent", "invalid", "no opponent"));
    };
    let now = Ts::now();
    let mut tx = db.begin().await?;
    let athlete_id = match c.athlete_id {
        Patch::Set(id) => Some(athlete_of(&mut tx, ws, id).await?.id),
        _ => None,
    };
    let (opponent_athlete_id, provider, external_id, name) = match who {
        Who::Roster(id) => {
            let a = athlete_of(&mut tx, ws, id).await?;
            if Some(a.id) == athlete_id {
                return Err(Error::field(
                    "opponent.athleteId",
                    "invalid",
                    "an athlete is not their own opponent",
                ));
            }
            (
                Some(a.id),
                None,
                None,
                format!("{} {}", a.first_name, a.last_name),
            )
        }
        Who::Provider(s, ext, name) => (None, Some(s), Some(ext), name),
    };
    let row = NoteRow {
        id: Id::new(),
        org_id: ws.org_id,
        athlete_id,
        opponent_athlete_id,
        opponent_provider: provider,
        opponent_external_id: external_id,
        opponent_name: name,
        body: c.body.unwrap_or_default(),
        strengths: Json(c.strengths.unwrap_or_default()),
        weaknesses: Json(c.weaknesses.unwrap_or_default()),
        tags: Json(c.tags.unwrap_or_default()),
        created_by: Some(ws.actor.user_id),
        updated_by: Some(ws.actor.user_id),
        created_at: now,
        updated_at: now,
    };
    repo::insert_note(&mut tx, &row).await?;
    audit::record(
        &mut tx,
        ws.audit(
            "opponent_note.created",
            "opponent_note",
            row.id,
            json!({ "athleteId": row.athlete_id, "opponentAthleteId": row.opponent_athlete_id,
                    "provider": row.opponent_provider, "externalId": row.opponent_external_id }),
        ),
    )
    .await?;
    let n = repo::note(&mut tx, ws.org_id, row.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the note just written is missing")))?;
    tx.commit().await?;
    Ok(n.into())
}

pub async fn get(db: &Db, ws: &InWorkspace, id: Id) -> Result<NoteView> {
    let mut c = db.acquire().await?;
    repo::note(&mut c, ws.org_id, id)
        .await?
        .map(Into::into)
        .ok_or_else(|| Error::not_found("note"))
}

/// The list's filter as sent: the athlete a note is for, and/or one opponent.
#[derive(Clone, Debug, Default)]
pub struct RawFilter {
    pub athlete_id: Option<Id>,
    pub opponent_athlete_id: Option<Id>,
    pub provider: Option<String>,
    pub external_id: Option<String>,
}

/// A page of the workspace's notes, last changed first.
pub async fn list(
    db: &Db,
    ws: &InWorkspace,
    f: &RawFilter,
    limit: i64,
    offset: i64,
) -> Result<Vec<NoteView>> {
    let mut v = Validator::new();
    let provider = f
        .provider
        .as_deref()
        .and_then(|p| v.choice_of::<Source>("provider", p));
    v.check(
        f.external_id.is_none() || f.provider.is_some(),
        "provider",
        "required",
        "externalId needs a provider",
    );
    v.finish()?;
    let filter = NoteFilter {
        athlete_id: f.athlete_id,
        opponent_athlete_id: f.opponent_athlete_id,
        provider,
        external_id: f.external_id.as_ref().map(|e| e.trim().to_string()),
    };
    let mut c = db.acquire().await?;
    Ok(repo::list_notes(&mut c, ws.org_id, &filter, limit, offset)
        .await?
        .into_iter()
        .map(Into::into)
        .collect())
}

/// Changes a note: a field left out stays, `null` clears it (the athlete it is for, the text,
/// a list).
pub async fn update(db: &Db, ws: &InWorkspace, id: Id, fields: &NoteFields) -> Result<NoteView> {
    let mut v = Validator::new();
    let c = check(&mut v, fields);
    v.finish()?;
    let mut tx = db.begin().await?;
    let mut n = repo::note(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("note"))?;
    match c.athlete_id {
        Patch::Absent => {}
        Patch::Clear => n.athlete_id = None,
        Patch::Set(a) => {
            let a = athlete_of(&mut tx, ws, a).await?;
            if Some(a.id) == n.opponent_athlete_id {
                return Err(Error::field(
                    "athleteId",
                    "invalid",
                    "an athlete is not their own opponent",
                ));
            }
            n.athlete_id = Some(a.id);
        }
    }
    if let Some(b) = c.body {
        n.body = b;
    }
    if let Some(s) = c.strengths {
        n.strengths = Json(s);
    }
    if let Some(w) = c.weaknesses {
        n.weaknesses = Json(w);
    }
    if let Some(t) = c.tags {
        n.tags = Json(t);
    }
    n.updated_by = Some(ws.actor.user_id);
    n.updated_at = Ts::now();
    repo::update_note(&mut tx, &n).await?;
    audit::record(
        &mut tx,
        ws.audit("opponent_note.updated", "opponent_note", n.id, json!({})),
    )
    .await?;
    let n = repo::note(&mut tx, ws.org_id, id)
        .await?
        .ok_or_else(|| Error::not_found("note"))?;
    tx.commit().await?;
    Ok(n.into())
}

pub async fn delete(db: &Db, ws: &InWorkspace, id: Id) -> Result<()> {
    let mut tx = db.begin().await?;
    if repo::delete_note(&mut tx, ws.org_id, id).await? == 0 {
        return Err(Error::not_found("note"));
    }
    audit::record(
        &mut tx,
        ws.audit("opponent_note.deleted", "opponent_note", id, json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
