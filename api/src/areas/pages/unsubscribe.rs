//! `/unsubscribe?token=…`: the link in a notification mail's footer. `GET` describes what the
//! link does and offers the button (link scanners follow GETs: nothing changes); `POST`
//! unsubscribes, from the button or as an RFC 8058 one-click post. Both call
//! `shared::domain::notifications::unsubscribe`, as `GET`/`POST /api/notifications/unsubscribe`
//! (the mail's `List-Unsubscribe` header) do.

use super::{Chrome, Form, PageUser, error_page, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shared::domain::notifications::unsubscribe as domain;

#[derive(Template)]
#[template(path = "pages/unsubscribe.html")]
pub struct UnsubscribePage {
    c: Chrome,
    token: String,
    category: String,
    unsubscribed: bool,
    /// This request unsubscribed (rather than found it done).
    just_now: bool,
}

#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

fn render(who: &PageUser, token: String, s: domain::Subscription, just_now: bool) -> Response {
    page(
        StatusCode::OK,
        &UnsubscribePage {
            c: Chrome::new("Email preferences", who),
            token,
            category: s.category,
            unsubscribed: s.unsubscribed,
            just_now,
        },
    )
}

pub async fn show(
    State(state): State<AppState>,
    who: PageUser,
    Query(q): Query<TokenQuery>,
) -> Response {
    match domain::state(&state.db, &state.keys, q.token.as_deref()).await {
        Ok(s) => render(&who, q.token.unwrap_or_default(), s, false),
        Err(e) => error_page(&who, &e),
    }
}

/// The form's body (the page's button, or a mail client's `List-Unsubscribe=One-Click`); the
/// token in the query is the whole credential.
#[derive(Deserialize)]
pub struct Ignored {}

pub async fn unsubscribe(
    State(state): State<AppState>,
    who: PageUser,
    Query(q): Query<TokenQuery>,
    Form(_): Form<Ignored>,
) -> Response {
    match domain::unsubscribe(&state.db, &state.keys, q.token.as_deref()).await {
        Ok(s) => render(&who, q.token.unwrap_or_default(), s, true),
        Err(e) => error_page(&who, &e),
    }
}
