//! Desk forms that send a file (`multipart/form-data`), from this site, with the session's CSRF
//! token as their first field (checked before any file byte is read) and a few short text
//! fields. Two shapes:
//! - [`DeskUpload`]: a small file (a CSV) held whole, within the request body limit
//!   (`BODY_LIMIT_BYTES`), refused (413) as soon as it passes it;
//! - [`DeskFile`]: a file too large to hold (a recording, a photo), handed on as the stream it
//!   is, to be bounded by the store that takes it as the JSON routes do. Its form puts the file
//!   last: nothing after it is read. Its route is `streamed_body()`.

use crate::areas::pages::{self, PageUser};
use crate::auth::SignedIn;
use crate::state::AppState;
use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::header;
use axum::response::Response;
use shared::Error;
use std::collections::HashMap;

/// The longest text field of such a form.
const MAX_TEXT_BYTES: usize = 4096;
/// The most text fields a form sends.
const MAX_FIELDS: usize = 32;

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

/// A form whose file streams on: its text fields, and the file when one was chosen.
pub struct DeskFile {
    pub fields: HashMap<String, String>,
    pub file: Option<FilePart>,
}

/// A chosen file, still to be read.
pub struct FilePart {
    /// What the browser says it is (a store decides by the bytes).
    pub content_type: Option<String>,
    pub body: Body,
}

impl DeskFile {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

impl FilePart {
    /// A store's refusal of this file (not the right type, too large, broken off), shown beside
    /// the form's `field`, at the store's own status (415, 413, 400).
    pub fn refused_at(field: &str, mut e: Error) -> Error {
        if e.code.starts_with("upload_") || e.code == "empty_body" {
            e.details = Error::field(field, e.code, e.message.clone()).details;
        }
        e
    }
}

/// A form being read: the parser past the CSRF token, and how to answer a fault.
struct Opened {
    mp: multer::Multipart<'static>,
    user: PageUser,
}

impl Opened {
    fn fail(&self, e: Error) -> Response {
        pages::error_page(&self.user, &e)
    }

    fn incomplete(&self) -> Response {
        self.fail(Error::bad_request("invalid_body", "the form is incomplete"))
    }

    /// The rest of a text field, bounded.
    async fn text(&self, mut f: multer::Field<'static>) -> Result<String, Response> {
        let mut text = Vec::new();
        while let Some(chunk) = f.chunk().await.map_err(|_| self.incomplete())? {
            text.extend_from_slice(&chunk);
            if text.len() > MAX_TEXT_BYTES {
                return Err(self.incomplete());
            }
        }
        String::from_utf8(text).map_err(|_| self.incomplete())
    }

    /// Reads a text field into `fields`, within the form's bounds.
    async fn keep(
        &self,
        f: multer::Field<'static>,
        fields: &mut HashMap<String, String>,
    ) -> Result<(), Response> {
        if fields.len() >= MAX_FIELDS {
            return Err(self.incomplete());
        }
        let name = f.name().unwrap_or("").to_string();
        let text = self.text(f).await?;
        fields.insert(name, text);
        Ok(())
    }

    async fn next(&mut self) -> Result<Option<multer::Field<'static>>, Response> {
        match self.mp.next_field().await {
            Ok(f) => Ok(f),
            Err(_) => Err(self.incomplete()),
        }
    }
}

/// Signed in, sent from this site, multipart, its first field the session's CSRF token.
async fn open(req: Request, state: &AppState) -> Result<Opened, Response> {
    let Some(who) = req.extensions().get::<SignedIn>().cloned() else {
        return Err(pages::sign_in_first(req.uri().path()));
    };
    let user = PageUser(Some(who.clone()));
    if !pages::same_origin(req.headers(), state) {
        return Err(pages::error_page(
            &user,
            &Error::forbidden("cross_site_form", "this form was sent from another site"),
        ));
    }
    let boundary = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|ct| multer::parse_boundary(ct).ok());
    let Some(boundary) = boundary else {
        return Err(pages::error_page(
            &user,
            &Error::unsupported_media_type("send the form as multipart/form-data"),
        ));
    };
    let mp = multer::Multipart::new(req.into_body().into_data_stream(), boundary);
    let mut form = Opened { mp, user };
    let csrf = match form.next().await? {
        Some(f) if f.name() == Some("csrf") => form.text(f).await?,
        _ => String::new(),
    };
    pages::check_csrf(&who, &csrf).map_err(|e| form.fail(e))?;
    Ok(form)
}

impl FromRequest<AppState> for DeskUpload {
    type Rejection = Response;
    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let limit = state.cfg.body_limit_bytes;
        let mut form = open(req, state).await?;
        let mut up = DeskUpload {
            file_name: String::new(),
            content_type: None,
            bytes: Vec::new(),
            fields: HashMap::new(),
        };
        while let Some(mut f) = form.next().await? {
            if let Some(file_name) = f.file_name() {
                up.file_name = file_name.to_string();
                up.content_type = f.content_type().map(|m| m.to_string());
                while let Some(chunk) = f.chunk().await.map_err(|_| form.incomplete())? {
                    if up.bytes.len() + chunk.len() > limit {
                        return Err(form.fail(Error::payload_too_large(format!(
                            "the file is larger than {limit} bytes"
                        ))));
                    }
                    up.bytes.extend_from_slice(&chunk);
                }
            } else {
                form.keep(f, &mut up.fields).await?;
            }
        }
        Ok(up)
    }
}

impl FromRequest<AppState> for DeskFile {
    type Rejection = Response;
    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let mut form = open(req, state).await?;
        let mut fields = HashMap::new();
        while let Some(f) = form.next().await? {
            match f.file_name() {
                // A file input left empty: its part is empty, the form goes on.
                Some("") => continue,
                Some(_) => {
                    let content_type = f.content_type().map(|m| m.to_string());
                    return Ok(DeskFile {
                        fields,
                        file: Some(FilePart {
                            content_type,
                            body: Body::from_stream(f),
                        }),
                    });
                }
                None => form.keep(f, &mut fields).await?,
            }
        }
        Ok(DeskFile { fields, file: None })
    }
}
