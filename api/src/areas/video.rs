//! Video delivery (issue 10, "Video"): the token-gated range proxy and the reachability check
//! of external sources. The token is `shared::video::token`, the SSRF rules
//! `shared::video::ssrf`, the range semantics `crate::http::ranged`. The routes that issue
//! tokens (`/api/video/sign`, the sidecar proxy) check access to a clip and then call
//! [`token::sign`] and [`ranged::serve_stored`] / [`ranged::serve_external`].

use crate::http::extract::Query;
use crate::http::zerocopy::Door;
use crate::http::{Error, Result, ranged};
use crate::state::AppState;
use axum::Extension;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, Method};
use axum::response::Response;
use serde::Deserialize;
use shared::video::origin::{self, Reachability};
use shared::video::ssrf::OriginPolicy;
use shared::video::token::{self, VideoSource};

#[derive(Deserialize)]
pub struct StreamQuery {
    /// Optional so a missing token answers 401, not 400.
    token: Option<String>,
}

/// `GET`/`HEAD /api/video/stream?token=…`: the grant's source with range semantics.
pub async fn stream(
    State(state): State<AppState>,
    Query(q): Query<StreamQuery>,
    method: Method,
    headers: HeaderMap,
    door: Option<Extension<Door>>,
) -> Result<Response> {
    let token = q.token.filter(|t| !t.is_empty()).ok_or_else(|| {
        Error::unauthorized(
            "video_token_missing",
            "a video stream needs its signed token",
        )
    })?;
    let now = shared::db::Ts::now().0.timestamp();
    let grant = token::verify(&state.keys, &token, now)?;
    let door = door.as_ref().map(|d| &d.0);
    Ok(match grant.source {
        VideoSource::Stored { store, key } => {
            ranged::serve_stored(&state.storage, store, &key, &headers, &method, door).await
        }
        VideoSource::External { url } => {
            let policy = OriginPolicy::from_config(&state.cfg);
            ranged::serve_external(&policy, &url, &headers, &method, door).await
        }
    })
}

#[derive(Deserialize)]
pub struct CheckQuery {
    url: Option<String>,
}

/// `GET /api/video/check?url=…`: whether an external source is allowed and answers.
pub async fn check(
    State(state): State<AppState>,
    Query(q): Query<CheckQuery>,
) -> Result<Json<Reachability>> {
    let url = q
        .url
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| Error::field("url", "required", "the video URL to check"))?;
    let policy = OriginPolicy::from_config(&state.cfg);
    Ok(Json(origin::check(&policy, &url).await?))
}
