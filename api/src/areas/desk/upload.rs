//! A desk form that sends a file (`multipart/form-data`): from this site, its first field the
//! session's CSRF token (checked before any file byte is read), one file within the request
//! body limit (`BODY_LIMIT_BYTES`) and a few short text fields. Bounded in memory: the file is
//! read chunk by chunk and refused (413) as soon as it passes the limit.

use crate::areas::pages::{self, PageUser};
use crate::auth::SignedIn;
use crate::state::AppState;
use axum::extract::{FromRequest, Multipart, Request};
use axum::response::Response;
use shared::Error;
use std::collections::HashMap;

/// The longest text field of such a form.
const MAX_TEXT_BYTES: usize = 4096;

pub struct DeskUpload {
    pub file_name: String,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
    pub fields: HashMap<String, String>,
}

impl DeskUpload {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

impl FromRequest<AppState> for DeskUpload {
    type Rejection = Response;
    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let Some(who) = req.extensions().get::<SignedIn>().cloned() else {
            return Err(pages::sign_in_first(req.uri().path()));
        };
        let page_user = PageUser(Some(who.clone()));
        let fail = |e: Error| pages::error_page(&page_user, &e);
        if !pages::same_origin(req.headers(), state) {
            return Err(fail(Error::forbidden(
                "cross_site_form",
                "this form was sent from another site",
            )));
        }
        let limit = state.cfg.body_limit_bytes;
        let mut mp = Multipart::from_request(req, state).await.map_err(|_| {
            fail(Error::unsupported_media_type(
                "send the form as multipart/form-data",
            ))
        })?;
        let bad = || Error::bad_request("invalid_body", "the form is incomplete");
        let first = mp.next_field().await.map_err(|_| fail(bad()))?;
        let csrf = match first {
            Some(f) if f.name() == Some("csrf") => f.text().await.map_err(|_| fail(bad()))?,
            _ => String::new(),
        };
        pages::check_csrf(&who, &csrf).map_err(fail)?;
        let mut up = DeskUpload {
            file_name: String::new(),
            content_type: None,
            bytes: Vec::new(),
            fields: HashMap::new(),
        };
        while let Some(mut f) = mp.next_field().await.map_err(|_| fail(bad()))? {
            let name = f.name().unwrap_or("").to_string();
            if let Some(file_name) = f.file_name() {
                up.file_name = file_name.to_string();
                up.content_type = f.content_type().map(str::to_string);
                while let Some(chunk) = f.chunk().await.map_err(|_| fail(bad()))? {
                    if up.bytes.len() + chunk.len() > limit {
                        return Err(fail(Error::payload_too_large(format!(
                            "the file is larger than {limit} bytes"
                        ))));
                    }
                    up.bytes.extend_from_slice(&chunk);
                }
            } else {
                let mut text = Vec::new();
                while let Some(chunk) = f.chunk().await.map_err(|_| fail(bad()))? {
                    text.extend_from_slice(&chunk);
                    if text.len() > MAX_TEXT_BYTES {
                        return Err(fail(bad()));
                    }
                }
                up.fields
                    .insert(name, String::from_utf8(text).map_err(|_| fail(bad()))?);
            }
        }
        Ok(up)
    }
}
