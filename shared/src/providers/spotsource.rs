//! The surf-spot provider, `spotsource` (`docs/competition.md`): spot search over HTTP and
//! JSON, `GET {base}/api/spots/search?q=&limit=` answering
//! `{"spots": [{"slug", "name", "region", "country", "latitude", "longitude"}]}`, with
//! `Authorization: Bearer {SPOTSOURCE_API_KEY}` when a key is configured. Reads are retried
//! on 429/5xx/transport errors like every provider read; entries without a slug or a name are
//! skipped. The forecast area (issue 16) adds the spot and forecast reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::http::{ProviderError, Retry, json_or_error, send};
use crate::config::SpotsourceConfig;

pub const PROVIDER: &str = "spotsource";

/// A surf spot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Spot {
    pub slug: String,
    pub name: String,
    pub region: Option<String>,
    pub country: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct Spotsource {
    cfg: SpotsourceConfig,
    http: reqwest::Client,
}

impl Spotsource {
    pub fn new(cfg: SpotsourceConfig, http: reqwest::Client) -> Self {
        Spotsource { cfg, http }
    }

    /// Spots whose name matches `query`, at most `limit`.
    pub async fn search(&self, query: &str, limit: u32) -> Result<Vec<Spot>, ProviderError> {
        let mut url = self.cfg.base_url.clone();
        url.path_segments_mut()
            .expect("the configured base URL has a host")
            .pop_if_empty()
            .extend(["api", "spots", "search"]);
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("limit", &limit.to_string());
        let resp = send(PROVIDER, Retry::Idempotent, || {
            let r = self.http.get(url.clone()).timeout(self.cfg.timeout);
            match &self.cfg.api_key {
                Some(k) => r.bearer_auth(k),
                None => r,
            }
        })
        .await?;
        let v: Value = json_or_error(PROVIDER, resp).await?;
        let spots = v
            .get("spots")
            .and_then(Value::as_array)
            .ok_or(ProviderError::Unavailable {
                provider: PROVIDER,
                message: "the answer has no list of spots".into(),
            })?;
        Ok(spots
            .iter()
            .filter_map(|s| serde_json::from_value::<Spot>(s.clone()).ok())
            .filter(|s| !s.slug.trim().is_empty() && !s.name.trim().is_empty())
            .collect())
    }
}
