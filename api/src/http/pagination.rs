//! The one pagination helper: `?limit=&offset=` in, `{items, limit, offset, nextOffset}` out.

use super::extract::Query;
use crate::http::ApiError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::{Deserialize, Serialize};

pub const DEFAULT_LIMIT: i64 = 50;
pub const MAX_LIMIT: i64 = 200;

#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub limit: i64,
    pub offset: i64,
}

#[derive(Deserialize)]
struct Raw {
    limit: Option<i64>,
    offset: Option<i64>,
}

impl<S: Send + Sync> FromRequestParts<S> for Page {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, s: &S) -> Result<Self, ApiError> {
        let Query(raw) = Query::<Raw>::from_request_parts(parts, s).await?;
        let mut v = shared::error::Validator::new();
        let limit = raw.limit.unwrap_or(DEFAULT_LIMIT);
        let offset = raw.offset.unwrap_or(0);
        v.check(
            (1..=MAX_LIMIT).contains(&limit),
            "limit",
            "out_of_range",
            "must be between 1 and 200",
        );
        v.check(
            offset >= 0,
            "offset",
            "out_of_range",
            "must not be negative",
        );
        v.finish()?;
        Ok(Page { limit, offset })
    }
}

impl Page {
    /// Rows to fetch: one more than the page, to learn whether another page follows.
    pub fn fetch_limit(&self) -> i64 {
        self.limit + 1
    }

    /// This page of a whole list held in memory (a provider's answer).
    pub fn slice<T>(&self, all: Vec<T>) -> Paged<T> {
        self.wrap(
            all.into_iter()
                .skip(self.offset as usize)
                .take(self.fetch_limit() as usize)
                .collect(),
        )
    }

    pub fn wrap<T>(&self, mut rows: Vec<T>) -> Paged<T> {
        let more = rows.len() as i64 > self.limit;
        rows.truncate(self.limit as usize);
        Paged {
            items: rows,
            limit: self.limit,
            offset: self.offset,
            next_offset: more.then_some(self.offset + self.limit),
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Paged<T> {
    pub items: Vec<T>,
    pub limit: i64,
    pub offset: i64,
    /// The offset of the next page, or null on the last page.
    pub next_offset: Option<i64>,
}
