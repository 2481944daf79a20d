//! The athletes pages of the desk: the roster (search, filters, pages), the profile (details,
//! coaches, guardians and consent, invite, public profile, provider links, training), create,
//! edit, archive, delete, merge and the CSV import (a preview of every line first) and export.
//! Each calls the operation the JSON handler of `areas::athletes` calls.

use super::imports;
use super::upload::DeskUpload;
use super::{Chrome, Desk, DeskForm, Empty, Pager, opt, status_of};
use crate::areas::athletes::invites::make_invite;
use crate::areas::pages::{Notice, page};
use crate::http::extract::{Path, Query};
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use shared::authz::{Module, Perm};
use shared::db::{Id, TextEnum};
use shared::domain::athletes::invites::{Delivery, NewInvite, RawInvite};
use shared::domain::athletes::profile::{self, Profile};
use shared::domain::athletes::{
    self as domain, AthleteFields, AthletePatch, Level, Naming, Publish, RawAthlete, RawPatch,
    Stance,
};
use shared::domain::competition::roster;
use shared::domain::footage::clips;
use shared::domain::members;
use shared::domain::wearable::sessions::{self, SessionView};
use shared::error::Validator;
use shared::import::athletes::AthleteImporter;
use shared::minors;
use shared::repo::athletes::Athlete;
use shared::repo::competition::ResultRow;
use shared::repo::footage::Clip;

/// Athletes per page of the roster.
pub const PAGE_SIZE: i64 = 25;

fn full_name(a: &Athlete) -> String {
    format!("{} {}", a.first_name, a.last_name)
}

/// A select's options: (value, label, selected).
fn options(names: &[&'static str], current: &str) -> Vec<(String, String, bool)> {
    names
        .iter()
        .map(|n| (n.to_string(), n.to_string(), *n == current))
        .collect()
}

// ---- the roster ----

#[derive(Deserialize, Default)]
pub struct ListQuery {
    #[serde(default)]
    q: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    level: String,
    #[serde(default)]
    coach: String,
    offset: Option<i64>,
}

pub struct Row {
    pub href: String,
    pub name: String,
    pub email: String,
    pub age: String,
    pub minor: bool,
    pub level: String,
    pub status: String,
    pub has_login: bool,
}

#[derive(Template)]
#[template(path = "desk/athletes/list.html")]
pub struct ListPage {
    c: Chrome,
    base: String,
    q: String,
    statuses: Vec<(String, String, bool)>,
    levels: Vec<(String, String, bool)>,
    coaches: Vec<(String, String, bool)>,
    rows: Vec<Row>,
    pager: Pager,
    prev_href: Option<String>,
    next_href: Option<String>,
    can_create: bool,
    notice: Option<Notice>,
}

pub async fn list(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<ListQuery>,
) -> Response {
    let acting = desk.acting();
    let mut v = Validator::new();
    let coach = opt(&q.coach).and_then(|c| v.id("coach", c));
    let filter = domain::parse_filter(
        &mut v,
        Some(q.q.clone()),
        opt(&q.status),
        opt(&q.level),
        coach,
        None,
    );
    let offset = q.offset.unwrap_or(0).max(0);
    let (mut rows, notice) = match v.finish() {
        Ok(()) => match domain::list(&acting, &state.db, &filter, PAGE_SIZE + 1, offset).await {
            Ok(r) => (r, None),
            Err(e) => return desk.error(&e),
        },
        Err(e) => (vec![], Some(Notice::of(&e))),
    };
    let pager = Pager::cut(&mut rows, offset, PAGE_SIZE);
    let coaches = match members::coach_directory(&state.db, &acting).await {
        Ok(c) => c,
        Err(e) => return desk.error(&e),
    };
    let link = |off: i64| {
        let qs = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("q", &q.q)
            .append_pair("status", &q.status)
            .append_pair("level", &q.level)
            .append_pair("coach", &q.coach)
            .append_pair("offset", &off.to_string())
            .finish();
        desk.path(&format!("/athletes?{qs}"))
    };
    let mut statuses = vec![(
        String::new(),
        desk.cat.t("ath.any").to_string(),
        q.status.is_empty(),
    )];
    statuses.extend(options(
        &["active", "pending", "archived", "all"],
        &q.status,
    ));
    let mut levels = vec![(
        String::new(),
        desk.cat.t("ath.any").to_string(),
        q.level.is_empty(),
    )];
    levels.extend(options(<Level as TextEnum>::NAMES, &q.level));
    let mut coach_opts = vec![(
        String::new(),
        desk.cat.t("ath.any").to_string(),
        q.coach.is_empty(),
    )];
    coach_opts.extend(coaches.into_iter().map(|(id, name)| {
        let id = id.to_string();
        let sel = id == q.coach;
        (id, name, sel)
    }));
    let page_rows = rows
        .iter()
        .map(|a| Row {
            href: desk.path(&format!("/athletes/{}", a.id)),
            name: full_name(a),
            email: a.email.clone().unwrap_or_default(),
            age: a
                .birth_date
                .map(|b| minors::age(b).to_string())
                .unwrap_or_default(),
            minor: minors::is_minor(a.birth_date),
            level: a.level.map(|l| l.to_string()).unwrap_or_default(),
            status: a.status.to_string(),
            has_login: a.user_id.is_some(),
        })
        .collect();
    let status = if notice.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    page(
        status,
        &ListPage {
            c: Chrome::new(&desk, desk.cat.t("ath.title")),
            base: desk.path("/athletes"),
            q: q.q.clone(),
            statuses,
            levels,
            coaches: coach_opts,
            rows: page_rows,
            prev_href: pager.prev.map(link),
            next_href: pager.next.map(link),
            pager,
            can_create: desk.ws.can(shared::authz::Perm::AthletesCreate),
            notice,
        },
    )
}

// ---- create and edit ----

#[derive(Deserialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct AthleteForm {
    #[serde(default)]
    first_name: String,
    #[serde(default)]
    last_name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    birth_date: String,
    #[serde(default)]
    stance: String,
    #[serde(default)]
    level: String,
    #[serde(default)]
    notes: String,
}

impl AthleteForm {
    fn of(a: &Athlete) -> AthleteForm {
        AthleteForm {
            first_name: a.first_name.clone(),
            last_name: a.last_name.clone(),
            email: a.email.clone().unwrap_or_default(),
            birth_date: a.birth_date.map(|d| d.to_string()).unwrap_or_default(),
            stance: a.stance.map(|s| s.to_string()).unwrap_or_default(),
            level: a.level.map(|l| l.to_string()).unwrap_or_default(),
            notes: a.notes.clone().unwrap_or_default(),
        }
    }
}

#[derive(Template)]
#[template(path = "desk/athletes/form.html")]
pub struct FormPage {
    c: Chrome,
    action: String,
    cancel: String,
    submit: &'static str,
    f: AthleteForm,
    stances: Vec<(String, String, bool)>,
    levels: Vec<(String, String, bool)>,
    notice: Option<Notice>,
}

fn form_page(
    desk: &Desk,
    title: String,
    action: String,
    cancel: String,
    submit: &'static str,
    f: AthleteForm,
    notice: Option<Notice>,
) -> FormPage {
    let mut stances = vec![(
        String::new(),
        desk.cat.t("app.none").to_string(),
        f.stance.is_empty(),
    )];
    stances.extend(options(<Stance as TextEnum>::NAMES, &f.stance));
    let mut levels = vec![(
        String::new(),
        desk.cat.t("app.none").to_string(),
        f.level.is_empty(),
    )];
    levels.extend(options(<Level as TextEnum>::NAMES, &f.level));
    FormPage {
        c: Chrome::new(desk, title),
        action,
        cancel,
        submit,
        f,
        stances,
        levels,
        notice,
    }
}

pub async fn new_form(desk: Desk) -> Response {
    let p = form_page(
        &desk,
        desk.cat.t("ath.new").into(),
        desk.path("/athletes/new"),
        desk.path("/athletes"),
        desk.cat.t("ath.create"),
        AthleteForm::default(),
        None,
    );
    page(StatusCode::OK, &p)
}

pub async fn create(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<AthleteForm>,
) -> Response {
    let mut v = Validator::new();
    let fields = AthleteFields::parse(
        &mut v,
        Naming::Json,
        &RawAthlete {
            first_name: &f.first_name,
            last_name: &f.last_name,
            email: opt(&f.email),
            birth_date: opt(&f.birth_date),
            stance: opt(&f.stance),
            level: opt(&f.level),
            notes: opt(&f.notes),
        },
    );
    let made = match v.finish() {
        Ok(()) => domain::create(&desk.acting(), &state.db, fields).await,
        Err(e) => Err(e),
    };
    match made {
        Ok(a) => desk.done(&format!("/athletes/{}", a.id), "created"),
        Err(e) => {
            let p = form_page(
                &desk,
                desk.cat.t("ath.new").into(),
                desk.path("/athletes/new"),
                desk.path("/athletes"),
                desk.cat.t("ath.create"),
                f,
                Some(Notice::of(&e)),
            );
            page(status_of(&e), &p)
        }
    }
}

pub async fn edit_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    let a = match domain::get(&desk.acting(), &state.db, id).await {
        Ok(a) => a,
        Err(e) => return desk.error(&e),
    };
    let p = form_page(
        &desk,
        desk.cat.fill("ath.edit_title", &[("name", &full_name(&a))]),
        desk.path(&format!("/athletes/{id}/edit")),
        desk.path(&format!("/athletes/{id}")),
        desk.cat.t("app.save"),
        AthleteForm::of(&a),
        None,
    );
    page(StatusCode::OK, &p)
}

pub async fn update(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<AthleteForm>,
) -> Response {
    let mut v = Validator::new();
    // Every field is sent: an empty one clears it (the names cannot be cleared: required).
    let patch = AthletePatch::parse(
        &mut v,
        &RawPatch {
            first_name: Some(&f.first_name),
            last_name: Some(&f.last_name),
            email: Some(f.email.trim()),
            birth_date: Some(f.birth_date.trim()),
            stance: Some(f.stance.trim()),
            level: Some(f.level.trim()),
            notes: Some(&f.notes),
            status: None,
        },
    );
    let done = match v.finish() {
        Ok(()) => domain::update(&desk.acting(), &state.db, id, patch).await,
        Err(e) => Err(e),
    };
    match done {
        Ok(_) => desk.done(&format!("/athletes/{id}"), "saved"),
        Err(e) => {
            let p = form_page(
                &desk,
                desk.cat.fill(
                    "ath.edit_title",
                    &[("name", &format!("{} {}", f.first_name, f.last_name))],
                ),
                desk.path(&format!("/athletes/{id}/edit")),
                desk.path(&format!("/athletes/{id}")),
                desk.cat.t("app.save"),
                f,
                Some(Notice::of(&e)),
            );
            page(status_of(&e), &p)
        }
    }
}

#[derive(Deserialize)]
pub struct StatusForm {
    #[serde(default)]
    status: String,
}

/// Archive (keeps everything) or bring back to active.
pub async fn set_status(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<StatusForm>,
) -> Response {
    let mut v = Validator::new();
    let patch = AthletePatch::parse(
        &mut v,
        &RawPatch {
            status: Some(f.status.as_str()),
            ..RawPatch::default()
        },
    );
    let done = match v.finish() {
        Ok(()) => domain::update(&desk.acting(), &state.db, id, patch).await,
        Err(e) => Err(e),
    };
    match done {
        Ok(a) if a.status.as_str() == "archived" => {
            desk.done(&format!("/athletes/{id}"), "archived")
        }
        Ok(_) => desk.done(&format!("/athletes/{id}"), "restored"),
        Err(e) => desk.error(&e),
    }
}

// ---- delete (with its own confirmation page) ----

pub async fn delete_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    match domain::get(&desk.acting(), &state.db, id).await {
        Ok(a) => {
            let name = full_name(&a);
            let name = [("name", name.as_str())];
            let title = desk.cat.fill("ath.delete_title", &name);
            let message = desk.cat.fill("ath.delete_confirm", &name);
            let at = format!("/athletes/{id}");
            super::confirm::delete_page(&desk, &title, &message, "ath.delete", &at)
        }
        Err(e) => desk.error(&e),
    }
}

pub async fn delete(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match domain::delete(&desk.acting(), &state.db, id).await {
        Ok(()) => desk.done("/athletes", "deleted"),
        Err(e) => desk.error(&e),
    }
}

// ---- the profile ----

pub struct InviteShown {
    pub url: String,
    pub expires: String,
}

#[derive(Template)]
#[template(path = "desk/athletes/show.html")]
pub struct ShowPage {
    c: Chrome,
    d: Desk,
    p: Profile,
    name: String,
    age: Option<u32>,
    minor: bool,
    base: String,
    coach_choices: Vec<(String, String)>,
    invite_state: Option<String>,
    new_invite: Option<InviteShown>,
    public_url: Option<String>,
    merge_choices: Vec<(String, String)>,
    /// The athlete's newest clips (with the footage module and its read permission).
    clips: Option<Vec<Clip>>,
    /// Where a clip's page is: `{clips_base}/{id}`.
    clips_base: String,
    /// The athlete's newest watch sessions (with the wearable module and its read permission).
    watch: Option<Vec<SessionView>>,
    /// The athlete's competition results from the providers (with the competition module).
    results: Option<Vec<ResultRow>>,
    notice: Option<Notice>,
}

/// Clips and watch sessions shown on a profile (the newest).
const PROFILE_RECENT: i64 = 10;

impl ShowPage {
    fn can(&self, perm: &str) -> bool {
        shared::authz::Perm::parse(perm).is_ok_and(|p| self.d.ws.can(p))
    }
}

async fn show_page(
    state: &AppState,
    desk: Desk,
    id: Id,
    new_invite: Option<InviteShown>,
    notice: Option<Notice>,
) -> Result<ShowPage, shared::Error> {
    let acting = desk.acting();
    let p = profile::get(&acting, &state.db, id).await?;
    let coaches = members::coach_directory(&state.db, &acting).await?;
    let coach_choices = coaches
        .into_iter()
        .filter(|(u, _)| !p.coaches.iter().any(|c| c.user_id == *u))
        .map(|(u, n)| (u.to_string(), n))
        .collect();
    let others = domain::list(
        &acting,
        &state.db,
        &shared::repo::athletes::Filter::default(),
        200,
        0,
    )
    .await?;
    let merge_choices = others
        .iter()
        .filter(|a| a.id != id)
        .map(|a| (a.id.to_string(), full_name(a)))
        .collect();
    let a = &p.athlete;
    let invite_state = p.invite.as_ref().map(|i| {
        let s = if i.used_at.is_some() || a.user_id.is_some() {
            "claimed"
        } else if i.expires_at.0 <= chrono::Utc::now() {
            "expired"
        } else {
            "open"
        };
        desk.cat.fill("ath.invite_state", &[("state", s)])
    });
    let clips = if desk.may(Module::Footage, Perm::FootageRead) {
        let mine = clips::Filter {
            athlete: Some(id),
            newest_first: true,
            ..Default::default()
        };
        Some(clips::list(&state.db, &acting, mine, PROFILE_RECENT, 0).await?)
    } else {
        None
    };
    let watch = if desk.may(Module::Wearable, Perm::WearableRead) {
        Some(sessions::list(&state.db, &acting, Some(id), PROFILE_RECENT, 0).await?)
    } else {
        None
    };
    let results = if desk.may(Module::Competition, Perm::CompetitionRead) {
        Some(roster::results(&state.db, &acting, id).await?)
    } else {
        None
    };
    let public_url = a
        .public_slug
        .as_ref()
        .filter(|_| a.published)
        .map(|s| state.cfg.public_url(&format!("/profile/{s}")));
    Ok(ShowPage {
        c: Chrome::new(&desk, full_name(a)),
        name: full_name(a),
        age: a.birth_date.map(minors::age),
        minor: minors::is_minor(a.birth_date),
        base: desk.path(&format!("/athletes/{id}")),
        coach_choices,
        invite_state,
        new_invite,
        public_url,
        merge_choices,
        clips,
        clips_base: desk.path("/clips"),
        watch,
        results,
        notice,
        p,
        d: desk,
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
) -> Response {
    let fallback = desk.page_user();
    match show_page(&state, desk, id, None, None).await {
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => crate::areas::pages::error_page(&fallback, &e),
    }
}

// ---- coaches ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssignForm {
    #[serde(default)]
    user_id: String,
    #[serde(default)]
    role: String,
}

pub async fn assign(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<AssignForm>,
) -> Response {
    let mut v = Validator::new();
    let user = v.id("userId", &f.user_id);
    let role = shared::domain::athletes::fields::optional_choice(&mut v, "role", opt(&f.role));
    let done = match (v.finish(), user) {
        (Ok(()), Some(user)) => domain::assign_coach(
            &desk.acting(),
            &state.db,
            id,
            user,
            role.unwrap_or(shared::domain::athletes::CoachRole::Assistant),
        )
        .await
        .map(|_| ()),
        (Err(e), _) => Err(e),
        (Ok(()), None) => Err(shared::Error::field(
            "userId",
            "required",
            "choose a member",
        )),
    };
    match done {
        Ok(()) => desk.done(&format!("/athletes/{id}"), "assigned"),
        Err(e) => reshow(&state, desk, id, e).await,
    }
}

pub async fn unassign(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id, sc)): Path<(Id, Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match domain::unassign_coach(&desk.acting(), &state.db, id, sc).await {
        Ok(()) => desk.done(&format!("/athletes/{id}"), "unassigned"),
        Err(e) => desk.error(&e),
    }
}

/// The profile again with the error of the form that failed, at the error's status.
async fn reshow(state: &AppState, desk: Desk, id: Id, e: shared::Error) -> Response {
    let code = status_of(&e);
    profile_after_post(state, desk, id, None, Some(Notice::of(&e)), code).await
}

/// The profile rendered as the answer to a form post (an error, or the invite link shown
/// once): htmx is told the address is the profile's, so a reload shows it rather than
/// re-posting.
async fn profile_after_post(
    state: &AppState,
    desk: Desk,
    id: Id,
    invite: Option<InviteShown>,
    notice: Option<Notice>,
    code: StatusCode,
) -> Response {
    let fallback = desk.page_user();
    match show_page(state, desk, id, invite, notice).await {
        Ok(p) => super::page_at(&p.d, code, &p, &format!("/athletes/{id}")),
        Err(e2) => crate::areas::pages::error_page(&fallback, &e2),
    }
}

// ---- publish ----

#[derive(Deserialize)]
pub struct PublishForm {
    #[serde(default)]
    published: String,
    #[serde(default)]
    bio: String,
}

pub async fn publish(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<PublishForm>,
) -> Response {
    let mut v = Validator::new();
    let p = Publish::parse(&mut v, f.published == "true", Some(f.bio.trim()));
    let done = match v.finish() {
        Ok(()) => domain::publish(&desk.acting(), &state.db, id, p)
            .await
            .map(|_| ()),
        Err(e) => Err(e),
    };
    match done {
        Ok(()) => desk.done(&format!("/athletes/{id}"), "published"),
        Err(e) => reshow(&state, desk, id, e).await,
    }
}

// ---- invite ----

#[derive(Deserialize)]
pub struct InviteForm {
    #[serde(default)]
    delivery: String,
    #[serde(default)]
    email: String,
}

/// Makes an invite: the link is shown once on the profile, or it is mailed.
pub async fn invite(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    DeskForm(f): DeskForm<InviteForm>,
) -> Response {
    let mail = f.delivery == "mail";
    let req = NewInvite::parse(&RawInvite {
        athlete_id: Some(id),
        first_name: None,
        last_name: None,
        email: opt(&f.email),
        birth_date: None,
    });
    let delivery = if mail { Delivery::Mail } else { Delivery::Link };
    let made = match req {
        Ok(req) => make_invite(&state, &desk.acting(), req, delivery).await,
        Err(e) => Err(e),
    };
    match made {
        Ok((_, _, Some(true))) => desk.done(&format!("/athletes/{id}"), "invite_sent"),
        Ok((_, _, Some(false))) => {
            reshow(
                &state,
                desk,
                id,
                shared::Error::unavailable(
                    "mail_failed",
                    "the invite was made but the mail could not be sent; try again",
                    30,
                ),
            )
            .await
        }
        Ok((made, url, None)) => {
            let shown = InviteShown {
                url,
                expires: desk.time(made.invite.expires_at),
            };
            profile_after_post(&state, desk, id, Some(shown), None, StatusCode::CREATED).await
        }
        Err(e) => reshow(&state, desk, id, e).await,
    }
}

// ---- merge ----

#[derive(Deserialize)]
pub struct MergeQuery {
    #[serde(default)]
    other: String,
}

#[derive(Template)]
#[template(path = "desk/athletes/merge.html")]
pub struct MergePage {
    c: Chrome,
    keep_name: String,
    gone_name: String,
    rows: Vec<(&'static str, String, String)>,
    action: String,
    cancel: String,
}

pub async fn merge_form(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id)): Path<(Id, Id)>,
    Query(q): Query<MergeQuery>,
) -> Response {
    let mut v = Validator::new();
    let other = v.id("other", &q.other);
    let acting = desk.acting();
    let pair = match (v.finish(), other) {
        (Ok(()), Some(o)) => match (
            domain::get(&acting, &state.db, id).await,
            domain::get(&acting, &state.db, o).await,
        ) {
            (Ok(k), Ok(g)) => Ok((k, g)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        },
        (Err(e), _) => Err(e),
        (Ok(()), None) => Err(shared::Error::field(
            "other",
            "required",
            "choose the duplicate",
        )),
    };
    let (keep, gone) = match pair {
        Ok(p) => p,
        Err(e) => return reshow(&state, desk, id, e).await,
    };
    let f = |a: &Athlete| AthleteForm::of(a);
    let (k, g) = (f(&keep), f(&gone));
    let rows = vec![
        (desk.cat.t("ath.first_name"), k.first_name, g.first_name),
        (desk.cat.t("ath.last_name"), k.last_name, g.last_name),
        (desk.cat.t("ath.email"), k.email, g.email),
        (desk.cat.t("ath.birth_date"), k.birth_date, g.birth_date),
        (desk.cat.t("ath.stance"), k.stance, g.stance),
        (desk.cat.t("ath.level"), k.level, g.level),
        (desk.cat.t("ath.notes"), k.notes, g.notes),
    ];
    page(
        StatusCode::OK,
        &MergePage {
            c: Chrome::new(&desk, desk.cat.t("ath.merge_title")),
            action: desk.path(&format!("/athletes/{id}/merge/{}", gone.id)),
            cancel: desk.path(&format!("/athletes/{id}")),
            keep_name: full_name(&keep),
            gone_name: full_name(&gone),
            rows,
        },
    )
}

pub async fn merge(
    State(state): State<AppState>,
    desk: Desk,
    Path((_ws, id, other)): Path<(Id, Id, Id)>,
    DeskForm(_): DeskForm<Empty>,
) -> Response {
    match domain::merge(&desk.acting(), &state.db, id, other).await {
        Ok(_) => desk.done(&format!("/athletes/{id}"), "merged"),
        Err(e) => reshow(&state, desk, id, e).await,
    }
}

// ---- CSV import and export ----

/// The roster's import (`desk::imports`): athletes, back to the roster.
const IMPORT: imports::Kind = imports::Kind {
    path: "/athletes/import",
    done: "/athletes",
    title: "ath.import_title",
    help: "ath.import_help",
    commit: "ath.import_now",
};

pub async fn import_form(desk: Desk) -> Response {
    imports::form(&desk, &IMPORT)
}

pub async fn import_preview(State(state): State<AppState>, desk: Desk, up: DeskUpload) -> Response {
    imports::preview(&state, &desk, &IMPORT, &AthleteImporter, up).await
}

pub async fn import_commit(
    State(state): State<AppState>,
    desk: Desk,
    DeskForm(f): DeskForm<imports::CommitForm>,
) -> Response {
    imports::commit(&state, &desk, &IMPORT, AthleteImporter, f).await
}

/// The roster as CSV, as `GET /api/athletes/export` answers it.
pub async fn export(State(state): State<AppState>, desk: Desk) -> Response {
    match domain::export_csv(&desk.acting(), &state.db).await {
        Ok(body) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"athletes.csv\"",
                ),
            ],
            body,
        )
            .into_response(),
        Err(e) => desk.error(&e),
    }
}
