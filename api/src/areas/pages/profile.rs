//! `/profile/{slug}`: a published athlete profile, the page of `GET /api/public/athletes/{slug}`
//! (`shared::domain::athletes::public_profile`: an allow-list; a minor shows first name and last
//! initial, and only with a guardian's consent). Unpublished, archived and unknown are 404 alike.

use super::{Chrome, PageUser, error_page, page};
use crate::http::extract::Path;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use shared::domain::athletes as domain;

#[derive(Template)]
#[template(path = "pages/profile.html")]
pub struct ProfilePage {
    c: Chrome,
    name: String,
    workspace: String,
    stance: Option<&'static str>,
    level: Option<&'static str>,
    bio: Option<String>,
}

pub async fn show(
    State(state): State<AppState>,
    who: PageUser,
    Path(slug): Path<String>,
) -> Response {
    match domain::public_profile(&state.db, slug).await {
        Ok(p) => page(
            StatusCode::OK,
            &ProfilePage {
                c: Chrome::new(&p.display_name, &who),
                name: p.display_name,
                workspace: p.workspace_name,
                stance: p.stance.map(|s| s.as_str()),
                level: p.level.map(|l| l.as_str()),
                bio: p.bio,
            },
        ),
        Err(e) => error_page(&who, &e),
    }
}
