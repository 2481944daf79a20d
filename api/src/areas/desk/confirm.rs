//! The page that asks before a deletion: one template for every area's "Delete …?" (the
//! deletion itself is a post from it, so it works without script and cannot be a stray click).

use super::{Chrome, Desk};
use crate::areas::pages::page;
use askama::Template;
use axum::http::StatusCode;
use axum::response::Response;

#[derive(Template)]
#[template(path = "desk/confirm_delete.html")]
struct ConfirmDelete<'a> {
    c: Chrome,
    message: &'a str,
    button: &'static str,
    action: String,
    cancel: String,
}

/// Asks whether to delete what lives at `at` (a desk path such as `/watch/{id}`): titled
/// `title`, saying `message`, its button the catalogue's `button`; the form posts to
/// `{at}/delete` and Cancel goes back to `at`.
pub fn delete_page(desk: &Desk, title: &str, message: &str, button: &str, at: &str) -> Response {
    page(
        StatusCode::OK,
        &ConfirmDelete {
            c: Chrome::new(desk, title),
            message,
            button: desk.cat.t(button),
            action: desk.path(&format!("{at}/delete")),
            cancel: desk.path(at),
        },
    )
}
