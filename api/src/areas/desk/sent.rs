//! `/w/{ws}/messages/sent`: how my notifications went out (issue 41, "delivery status …
//! visible to the sender"): my sends in this workspace with their counts per channel, and one
//! send's deliveries per recipient, channel and device (masked). The same operations as
//! `GET /api/notifications/sent` and `…/{id}/deliveries` (`domain::notifications::sent`):
//! only the sender sees a send; another's, or another workspace's, is a 404.

use super::{Chrome, Desk, Offset, Pager};
use crate::areas::notifications::sent::SentDevice;
use crate::areas::pages::page;
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::db::Id;
use shared::domain::notifications::sent::{self as domain, ChannelCounts};
use shared::domain::notifications::{DeliveryStatus, SkipReason};

const PAGE: i64 = 25;

/// One channel's counts as the list shows them (only the non-zero ones).
pub struct ChannelRow {
    pub channel: &'static str,
    pub counts: Vec<(&'static str, i64)>,
}

pub struct SendRow {
    pub href: String,
    pub title: String,
    pub kind: String,
    pub recipients: i64,
    pub when: String,
    pub channels: Vec<ChannelRow>,
}

#[derive(Template)]
#[template(path = "desk/messages/sent.html")]
pub struct SentPage {
    c: Chrome,
    rows: Vec<SendRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
}

/// The counts shown for a channel, by catalogue key, zeros left out.
fn counts(c: &ChannelCounts) -> Vec<(&'static str, i64)> {
    [
        ("sent.sent", c.sent),
        ("sent.pending", c.pending),
        ("sent.failed", c.failed),
        ("sent.skipped_by_preference", c.skipped_by_preference),
        ("sent.opted_out", c.opted_out),
        ("sent.skipped", c.skipped),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .collect()
}

pub async fn list(State(state): State<AppState>, desk: Desk, Query(q): Query<Offset>) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let me = desk.who.caller.user.id;
    let mut sends = match domain::list(&state.db, me, desk.org(), PAGE + 1, offset).await {
        Ok(s) => s,
        Err(e) => return desk.error(&e),
    };
    let pager = Pager::cut(&mut sends, offset, PAGE);
    let rows = sends
        .into_iter()
        .map(|s| SendRow {
            href: desk.path(&format!("/messages/sent/{}", s.send.id)),
            when: desk.time(s.send.created_at),
            title: s.send.title,
            kind: s.send.kind,
            recipients: s.send.recipients,
            channels: s
                .channels
                .iter()
                .map(|(ch, c)| ChannelRow {
                    channel: ch.as_str(),
                    counts: counts(c),
                })
                .collect(),
        })
        .collect();
    let link = |o: i64| desk.path(&format!("/messages/sent?offset={o}"));
    page(
        StatusCode::OK,
        &SentPage {
            c: Chrome::new(&desk, desk.cat.t("sent.title")),
            rows,
            prev_href: pager.prev.map(link),
            next_href: pager.next.map(link),
        },
    )
}

pub struct DeliveryRow {
    pub name: String,
    pub channel: &'static str,
    /// The status's catalogue key (a skip by its reason).
    pub status: &'static str,
    pub attempts: i64,
    pub when: String,
    pub devices: Vec<SentDevice>,
}

#[derive(Template)]
#[template(path = "desk/messages/sent_one.html")]
pub struct SendPage {
    c: Chrome,
    title: String,
    when: String,
    recipients: i64,
    back: String,
    rows: Vec<DeliveryRow>,
    prev_href: Option<String>,
    next_href: Option<String>,
}

#[derive(Deserialize)]
pub struct SendPath {
    id: Id,
}

fn status_key(status: DeliveryStatus, skip: Option<SkipReason>) -> &'static str {
    match (status, skip) {
        (DeliveryStatus::Pending | DeliveryStatus::Sending, _) => "sent.pending",
        (DeliveryStatus::Sent, _) => "sent.sent",
        (DeliveryStatus::Failed, _) => "sent.failed",
        (DeliveryStatus::Skipped, Some(SkipReason::Preference)) => "sent.skipped_by_preference",
        (DeliveryStatus::Skipped, Some(SkipReason::OptedOut)) => "sent.opted_out",
        (DeliveryStatus::Skipped, _) => "sent.skipped",
    }
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path(p): Path<SendPath>,
    Query(q): Query<Offset>,
) -> Response {
    let offset = q.offset.unwrap_or(0).max(0);
    let me = desk.who.caller.user.id;
    let (send, mut rows) =
        match domain::deliveries(&state.db, me, desk.org(), p.id, PAGE + 1, offset).await {
            Ok(r) => r,
            Err(e) => return desk.error(&e),
        };
    let pager = Pager::cut(&mut rows, offset, PAGE);
    let rows = rows
        .into_iter()
        .map(|d| DeliveryRow {
            status: status_key(d.status, d.skip_reason),
            channel: d.channel.as_str(),
            attempts: d.attempts,
            when: desk.time(d.sent_at.unwrap_or(d.updated_at)),
            devices: d
                .devices
                .and_then(|v| serde_json::from_value(v.0).ok())
                .unwrap_or_default(),
            name: d.name,
        })
        .collect();
    let link = |o: i64| desk.path(&format!("/messages/sent/{}?offset={o}", send.id));
    page(
        StatusCode::OK,
        &SendPage {
            c: Chrome::new(&desk, send.title.clone()),
            when: desk.time(send.created_at),
            recipients: send.recipients,
            back: desk.path("/messages/sent"),
            title: send.title,
            rows,
            prev_href: pager.prev.map(link),
            next_href: pager.next.map(link),
        },
    )
}
