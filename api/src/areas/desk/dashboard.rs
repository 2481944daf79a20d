//! The desk's front page (`GET /w/{ws}/`): today's and this week's training sessions, recent
//! clips and their status, unread conversations, athletes needing attention and jobs that
//! failed. Each part shows only when its module is on and the member may read it.

use super::{Chrome, Desk};
use crate::areas::pages::page;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Duration;
use jobs::monitor::{self, JobFilter};
use jobs::progress::JobStatus;
use shared::authz::{Module, Perm};
use shared::db::Id;
use shared::domain::athletes as athletes_domain;
use shared::domain::footage::clips;
use shared::domain::messaging::conversations;
use shared::domain::training;
use shared::repo::training::Filter;

pub struct SessionLine {
    pub href: String,
    pub title: String,
    pub when: String,
    pub iso: String,
    pub place: String,
}

pub struct Line {
    pub href: String,
    pub text: String,
    pub badge: String,
    pub tone: &'static str,
}

#[derive(Template)]
#[template(path = "desk/dashboard.html")]
pub struct Dashboard {
    c: Chrome,
    today: Option<Vec<SessionLine>>,
    week: Option<Vec<SessionLine>>,
    clips: Option<Vec<Line>>,
    unread: Option<Vec<Line>>,
    attention: Option<Vec<Line>>,
    failed: Vec<Line>,
}

pub async fn show(State(state): State<AppState>, desk: Desk) -> Response {
    match build(&state, &desk).await {
        Ok(d) => page(StatusCode::OK, &d),
        Err(e) => desk.error(&e),
    }
}

async fn build(state: &AppState, desk: &Desk) -> shared::Result<Dashboard> {
    let acting = desk.acting();
    let db = &state.db;
    let (mut today, mut week) = (None, None);
    if desk.may(Module::Training, Perm::TrainingRead) {
        let from = desk.midnight(desk.today());
        let tomorrow = from.plus(Duration::days(1));
        let filter = Filter {
            from: Some(from),
            to: Some(from.plus(Duration::days(7))),
            ..Filter::default()
        };
        let rows = training::list(db, desk.org(), &filter, 100, 0).await?;
        let line = |s: &shared::repo::training::Session| SessionLine {
            href: desk.path(&format!("/training/{}", s.id)),
            title: s.title.clone(),
            when: desk.time(s.starts_at),
            iso: s.starts_at.0.to_rfc3339(),
            place: s.spot.clone().or(s.location.clone()).unwrap_or_default(),
        };
        today = Some(
            rows.iter()
                .filter(|s| s.starts_at < tomorrow)
                .map(line)
                .collect(),
        );
        week = Some(
            rows.iter()
                .filter(|s| s.starts_at >= tomorrow)
                .map(line)
                .collect(),
        );
    }
    let clips = if desk.may(Module::Footage, Perm::FootageRead) {
        let recent = clips::Filter {
            newest_first: true,
            ..Default::default()
        };
        let rows = clips::list(db, &acting, recent, 6, 0).await?;
        Some(
            rows.into_iter()
                .map(|c| Line {
                    href: desk.path(&format!("/clips/{}", c.id)),
                    tone: super::footage::tone(c.status),
                    badge: super::footage::status_text(desk, c.status).to_string(),
                    text: c.file_name,
                })
                .collect(),
        )
    } else {
        None
    };
    let unread = if desk.may(Module::Messaging, Perm::MessagingUse) {
        let me = acting.actor.user_id;
        let f = conversations::ListFilter::parse(None, Some(desk.org()))?;
        let rows = conversations::list(&acting.actor, db, f, 100, 0).await?;
        Some(
            rows.into_iter()
                .filter(|r| conversations::unread_for(r, conversations::side_of(r, me)) > 0)
                .map(|r| Line {
                    href: desk.path(&format!("/messages/{}", r.conv.id)),
                    text: format!("{} {}", r.athlete_first_name, r.athlete_last_name),
                    badge: desk
                        .cat
                        .fill("msg.unread_count", &[("count", &r.unread.to_string())]),
                    tone: "warn",
                })
                .collect(),
        )
    } else {
        None
    };
    let attention = if desk.may(Module::Athletes, Perm::AthletesRead) {
        let rows = athletes_domain::needing_attention(&acting, db, 20).await?;
        Some(
            rows.into_iter()
                .map(|a| {
                    let minor = shared::minors::is_minor(a.birth_date);
                    let mut why = vec![];
                    if a.invite_unclaimed {
                        why.push(desk.cat.t("dash.invite_unclaimed"));
                    }
                    if minor && !a.consent {
                        why.push(desk.cat.t("dash.consent_missing"));
                    }
                    if minor && !a.guardian {
                        why.push(desk.cat.t("dash.no_guardian"));
                    }
                    Line {
                        href: desk.path(&format!("/athletes/{}", a.id)),
                        text: format!("{} {}", a.first_name, a.last_name),
                        badge: why.join(", "),
                        tone: "warn",
                    }
                })
                .collect(),
        )
    } else {
        None
    };
    let failed = failed_jobs(state, desk.org()).await?;
    Ok(Dashboard {
        c: Chrome::new(desk, desk.cat.t("dash.title")),
        today,
        week,
        clips,
        unread,
        attention,
        failed: failed
            .into_iter()
            .map(|j| Line {
                href: format!("/w/{}/jobs/{}", desk.org(), j.id),
                text: j.kind,
                badge: desk.time(j.finished_at.unwrap_or(j.updated_at)),
                tone: "bad",
            })
            .collect(),
    })
}

async fn failed_jobs(state: &AppState, org: Id) -> shared::Result<Vec<jobs::progress::Progress>> {
    let f = JobFilter {
        status: Some(JobStatus::Failed),
        org_id: Some(org),
        ..JobFilter::default()
    };
    let mut c = state.db.acquire().await?;
    Ok(monitor::list(&mut c, &f, 5, 0).await?)
}
