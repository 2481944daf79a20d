//! The professional tour's athlete index, `tourindex` (`docs/competition.md`). It publishes no
//! API contract, so the adapter reads what its site serves:
//!
//! - JSON: `GET {base}/api/athletes/search?q=&limit=` (athlete search) and
//!   `GET {base}/api/live-search?q=` (typeahead over athletes and events);
//! - HTML: `GET {base}/athletes/{id}` (profile with results), `GET {base}/tours/{tour}/athletes?page=N`
//!   (the tour's directory, paginated), `GET {base}/tours/{tour}/events` (its events) and
//!   `GET {base}/events/{id}` (an event's results);
//! - images: the headshot URLs the pages give, fetched only from the index's own origin.
//!
//! Every answer is read by the tolerant readers of [`super::tourindex_pages`]: what cannot be
//! read is listed in `issues`, and only a page without an identity fails. Calls are paced
//! ([`super::pace`]), retried on 429/5xx/transport errors (all are reads), and time out after
//! `TOURINDEX_TIMEOUT_MS`. A 404 is "not found" (`Ok(None)`); an unreadable page or body is
//! `Unavailable` (transient: a half-deployed site usually recovers).

use bytes::Bytes;
use url::Url;

use super::http::{ProviderError, Retry, retry_after, send};
use super::pace::Pace;
use super::tourindex_pages::{
    self as pages, DirectoryPage, LiveHit, TourAthlete, TourEvent, TourEventRef, TourProfile,
};
use crate::config::TourindexConfig;

pub const PROVIDER: &str = "tourindex";

/// The largest page or image read (a page this large is not a page the readers expect).
const MAX_BODY: usize = 5 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct Tourindex {
    cfg: TourindexConfig,
    http: reqwest::Client,
    pace: Pace,
}

impl Tourindex {
    pub fn new(cfg: TourindexConfig, http: reqwest::Client) -> Self {
        Tourindex {
            pace: Pace::per_sec(cfg.rate_per_sec),
            cfg,
            http,
        }
    }

    pub fn cache_ttl(&self) -> std::time::Duration {
        self.cfg.cache_ttl
    }

    /// The tours the scheduled sync scrapes.
    pub fn tours(&self) -> &[String] {
        &self.cfg.tours
    }

    fn url(&self, path: &[&str]) -> Url {
        let mut u = self.cfg.base_url.clone();
        u.path_segments_mut()
            .expect("the configured base URL has a host")
            .pop_if_empty()
            .extend(path);
        u
    }

    /// GETs `url`: the body on 2xx, `None` on 404, a typed error otherwise.
    async fn get(&self, url: Url) -> Result<Option<Bytes>, ProviderError> {
        self.pace.wait().await;
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http.get(url.clone()).timeout(self.cfg.timeout)
        })
        .await?;
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let wait = retry_after(resp.headers());
        let body = resp
            .bytes()
            .await
            .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
        if status.is_success() {
            if body.len() > MAX_BODY {
                return Err(unreadable(format!("the answer is {} bytes", body.len())));
            }
            return Ok(Some(body));
        }
        let message: String = String::from_utf8_lossy(&body).chars().take(300).collect();
        Err(match status.as_u16() {
            429 => ProviderError::RateLimited {
                provider: PROVIDER,
                retry_after: wait,
            },
            400..=499 => ProviderError::Rejected {
                provider: PROVIDER,
                status: status.as_u16(),
                message,
            },
            _ => ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("status {status}: {message}"),
            },
        })
    }

    async fn page(&self, url: Url) -> Result<Option<String>, ProviderError> {
        Ok(self
            .get(url)
            .await?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// Athletes matching `query` (at most `limit`), with what could not be read.
    pub async fn search(
        &self,
        query: &str,
        limit: u32,
    ) -> Result<(Vec<TourAthlete>, Vec<String>), ProviderError> {
        let mut url = self.url(&["api", "athletes", "search"]);
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("limit", &limit.to_string());
        match self.get(url).await? {
            None => Ok((Vec::new(), Vec::new())),
            Some(body) => pages::search_answer(&body).map_err(unreadable),
        }
    }

    /// Typeahead suggestions for `query`.
    pub async fn live_search(&self, query: &str) -> Result<Vec<LiveHit>, ProviderError> {
        let mut url = self.url(&["api", "live-search"]);
        url.query_pairs_mut().append_pair("q", query);
        match self.get(url).await? {
            None => Ok(Vec::new()),
            Some(body) => pages::live_answer(&body).map_err(unreadable),
        }
    }

    /// An athlete's profile with results.
    pub async fn athlete(&self, id: &str) -> Result<Option<TourProfile>, ProviderError> {
        match self.page(self.url(&["athletes", id])).await? {
            None => Ok(None),
            Some(html) => pages::profile_page(id, &html).map(Some).map_err(unreadable),
        }
    }

    /// One page (from 1) of a tour's directory; `None` when the tour does not exist.
    pub async fn directory(
        &self,
        tour: &str,
        page: u32,
    ) -> Result<Option<DirectoryPage>, ProviderError> {
        let mut url = self.url(&["tours", tour, "athletes"]);
        url.query_pairs_mut().append_pair("page", &page.to_string());
        match self.page(url).await? {
            None => Ok(None),
            Some(html) => pages::directory_page(tour, &html)
                .map(Some)
                .map_err(unreadable),
        }
    }

    /// A tour's events; `None` when the tour does not exist.
    pub async fn events(
        &self,
        tour: &str,
    ) -> Result<Option<(Vec<TourEventRef>, Vec<String>)>, ProviderError> {
        match self.page(self.url(&["tours", tour, "events"])).await? {
            None => Ok(None),
            Some(html) => pages::event_list_page(&html).map(Some).map_err(unreadable),
        }
    }

    /// An event's results.
    pub async fn event(&self, id: &str) -> Result<Option<TourEvent>, ProviderError> {
        match self.page(self.url(&["events", id])).await? {
            None => Ok(None),
            Some(html) => pages::event_page(id, &html).map(Some).map_err(unreadable),
        }
    }

    /// The absolute URL of an image the pages reference, when it is on the index's own origin
    /// (a page may point anywhere; we only fetch from the provider we were configured with).
    pub fn own_image_url(&self, src: &str) -> Option<Url> {
        let u = self.cfg.base_url.join(src).ok()?;
        (u.origin() == self.cfg.base_url.origin()).then_some(u)
    }

    /// An image from the index's own origin, with its content type; `None` when gone.
    pub async fn image(&self, url: Url) -> Result<Option<(Bytes, String)>, ProviderError> {
        if url.origin() != self.cfg.base_url.origin() {
            return Err(ProviderError::Rejected {
                provider: PROVIDER,
                status: 400,
                message: "the image is not on the tour index's origin".into(),
            });
        }
        self.pace.wait().await;
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http.get(url.clone()).timeout(self.cfg.timeout)
        })
        .await?;
        if resp.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !resp.status().is_success() {
            return Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("image: status {}", resp.status()),
            });
        }
        let ct = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        if !ct.starts_with("image/") {
            return Err(unreadable(format!("the image answer is {ct:?}")));
        }
        let body = resp
            .bytes()
            .await
            .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
        if body.len() > MAX_BODY {
            return Err(unreadable(format!("the image is {} bytes", body.len())));
        }
        Ok(Some((body, ct)))
    }
}

fn unreadable(message: impl Into<String>) -> ProviderError {
    ProviderError::Unavailable {
        provider: PROVIDER,
        message: message.into(),
    }
}
