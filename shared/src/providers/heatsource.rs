//! The competition provider `heatsource`, over its LiveHeats-style GraphQL API
//! (`../shared/PROVIDERS.md`): one endpoint, `POST {base}/api/graphql` with
//! `{query, variables, operationName}`, answering `{data, errors}`.
//!
//! - Public queries (organisations, series with divisions and rankings, events with divisions,
//!   heats, results and competitors) are sent without credentials.
//! - Licensed queries (athlete search and profiles) carry an OAuth 2.0 client-credentials token
//!   from `POST {base}/oauth/token` (HTTP Basic `client_id:client_secret`,
//!   `grant_type=client_credentials`), cached until 30 s before it expires and shared by every
//!   request of the process. An `UNAUTHENTICATED` answer drops the cached token and the query is
//!   sent once more with a new one. Without credentials a licensed query is
//!   [`ProviderError::NotConfigured`].
//!
//! Errors: transport, 429 and 5xx are handled as in [`super::http`] (idempotent: a query has no
//! side effect, so it is retried up to three times); GraphQL `errors` in a 200 answer are mapped
//! to [`ProviderError`] by their `extensions.code` (authentication and bad-request codes are
//! `Rejected`, anything else `Unavailable`), never passed on as data; an answer whose `data` does
//! not have the documented shape is `Unavailable`. A root field that answers `null` is "not
//! found" (`Ok(None)`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::http::{ProviderError, Retry, json_or_error, send};
use super::pace::Pace;
use crate::config::HeatsourceConfig;

pub const PROVIDER: &str = "heatsource";
/// Licensed queries without `HEATSOURCE_CLIENT_ID`/`HEATSOURCE_CLIENT_SECRET`.
const NO_CREDENTIALS: &str = "heatsource (client credentials)";

/// The adapter; cheap to clone (clones share the token cache).
#[derive(Clone)]
pub struct Heatsource {
    cfg: HeatsourceConfig,
    http: reqwest::Client,
    token: Arc<tokio::sync::Mutex<Option<Token>>>,
    pace: Pace,
}

impl std::fmt::Debug for Heatsource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Heatsource")
            .field("cfg", &self.cfg)
            .finish()
    }
}

struct Token {
    value: String,
    renew_at: Instant,
}

/// Who may ask a query: anyone, or a licensed client with a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Public,
    Licensed,
}

// ---- the provider's shapes (camelCase as on the wire, ours and theirs) ----

/// An athlete as lists and competitors show them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = HeatsourceAthleteRef)]
pub struct AthleteRef {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub image: Option<String>,
}

/// An athlete from the search or a profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Athlete {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub image: Option<String>,
    #[serde(default)]
    pub nationality: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Division {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventSummary {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
}

/// A series with the divisions it ranks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub rankings_divisions: Vec<Division>,
}

/// An organisation with its events and series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Organisation {
    pub id: String,
    pub name: String,
    pub short_name: String,
    #[serde(default)]
    pub events: Vec<EventSummary>,
    #[serde(default)]
    pub series: Vec<Series>,
}

/// One athlete's place in a series division.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ranking {
    #[serde(default)]
    pub place: Option<i64>,
    #[serde(default)]
    pub points: Option<f64>,
    pub athlete: AthleteRef,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrganisationRef {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub short_name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeriesRef {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(default)]
    pub formatted_address: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeatResult {
    pub athlete_id: String,
    #[serde(default)]
    pub total: Option<f64>,
    #[serde(default)]
    pub place: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Competitor {
    pub athlete_id: String,
    #[serde(default)]
    pub bib: Option<String>,
    pub athlete: AthleteRef,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Heat {
    #[serde(default)]
    pub round: Option<String>,
    #[serde(default)]
    pub round_position: Option<i64>,
    #[serde(default)]
    pub start_time: Option<String>,
    #[serde(default)]
    pub end_time: Option<String>,
    #[serde(default)]
    pub result: Vec<HeatResult>,
    #[serde(default)]
    pub competitors: Vec<Competitor>,
}

/// A division's final standing in one event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DivisionPlace {
    #[serde(default)]
    pub place: Option<i64>,
    #[serde(default)]
    pub total: Option<f64>,
    pub athlete_id: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventDivision {
    pub id: String,
    #[serde(default)]
    pub entry_count: Option<i64>,
    pub division: Division,
    #[serde(default)]
    pub heats: Vec<Heat>,
    #[serde(default)]
    pub ranking: Vec<DivisionPlace>,
}

/// An event with its divisions, heats, results and competitors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub organisation: Option<OrganisationRef>,
    #[serde(default)]
    pub series: Option<SeriesRef>,
    #[serde(default)]
    pub location: Option<Location>,
    #[serde(default)]
    pub event_divisions: Vec<EventDivision>,
}

// ---- the queries ----

const ORGANISATION: &str = "query Organisation($shortName: String!) { organisationByShortName(shortName: $shortName) { id name shortName events { id name status date } series { id name rankingsDivisions { id name } } } }";
const SERIES: &str =
    "query Series($id: ID!) { series(id: $id) { id name rankingsDivisions { id name } } }";
const RANKINGS: &str = "query SeriesRankings($id: ID!, $divisionId: ID!) { series(id: $id) { id rankings(divisionId: $divisionId) { place points athlete { id name image } } } }";
const EVENT: &str = "query Event($id: ID!) { event(id: $id) { id name status date organisation { id name shortName } series { id name } location { formattedAddress } eventDivisions { id entryCount division { id name } heats { round roundPosition startTime endTime result { athleteId total place } competitors { athleteId bib athlete { id name image } } } ranking { place total athleteId } } } }";
const ATHLETE: &str = "query Athlete($id: ID!) { athlete(id: $id) { id name image nationality } }";
const ATHLETE_SEARCH: &str = "query AthleteSearch($query: String!, $limit: Int!) { athleteSearch(query: $query, limit: $limit) { id name image nationality } }";

/// RFC 6749 §5.1 (snake_case, unlike the GraphQL data).
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

impl Heatsource {
    pub fn new(cfg: HeatsourceConfig, http: reqwest::Client) -> Self {
        Heatsource {
            pace: Pace::per_sec(cfg.rate_per_sec),
            cfg,
            http,
            token: Arc::default(),
        }
    }

    /// The adapter for an optional configuration: `None` is [`ProviderError::NotConfigured`].
    pub fn from_config(
        cfg: Option<&HeatsourceConfig>,
        http: reqwest::Client,
    ) -> Result<Self, ProviderError> {
        cfg.map(|c| Heatsource::new(c.clone(), http))
            .ok_or(ProviderError::NotConfigured(PROVIDER))
    }

    /// How long answers may be cached.
    pub fn cache_ttl(&self) -> Duration {
        self.cfg.cache_ttl
    }

    /// The organisations the scheduled syncs follow.
    pub fn followed(&self) -> &[String] {
        &self.cfg.organisations
    }

    fn url(&self, path: &[&str]) -> url::Url {
        let mut u = self.cfg.base_url.clone();
        u.path_segments_mut()
            .expect("the configured base URL has a host")
            .pop_if_empty()
            .extend(path);
        u
    }

    /// An organisation by its short name (e.g. `wsl`), with its events and series.
    pub async fn organisation(
        &self,
        short_name: &str,
    ) -> Result<Option<Organisation>, ProviderError> {
        self.root(
            ORGANISATION,
            "Organisation",
            json!({ "shortName": short_name }),
            "organisationByShortName",
            Access::Public,
        )
        .await
    }

    /// A series and the divisions it ranks.
    pub async fn series(&self, id: &str) -> Result<Option<Series>, ProviderError> {
        self.root(
            SERIES,
            "Series",
            json!({ "id": id }),
            "series",
            Access::Public,
        )
        .await
    }

    /// The rankings of one division of a series; `None` when the series does not exist.
    pub async fn rankings(
        &self,
        series_id: &str,
        division_id: &str,
    ) -> Result<Option<Vec<Ranking>>, ProviderError> {
        #[derive(Deserialize)]
        struct S {
            #[serde(default)]
            rankings: Vec<Ranking>,
        }
        let s: Option<S> = self
            .root(
                RANKINGS,
                "SeriesRankings",
                json!({ "id": series_id, "divisionId": division_id }),
                "series",
                Access::Public,
            )
            .await?;
        Ok(s.map(|s| s.rankings))
    }

    /// An event with its divisions, heats, results and competitors.
    pub async fn event(&self, id: &str) -> Result<Option<Event>, ProviderError> {
        self.root(EVENT, "Event", json!({ "id": id }), "event", Access::Public)
            .await
    }

    /// An athlete's profile (licensed).
    pub async fn athlete(&self, id: &str) -> Result<Option<Athlete>, ProviderError> {
        self.root(
            ATHLETE,
            "Athlete",
            json!({ "id": id }),
            "athlete",
            Access::Licensed,
        )
        .await
    }

    /// Athletes whose name matches `query`, at most `limit` (licensed).
    pub async fn search_athletes(
        &self,
        query: &str,
        limit: u32,
    ) -> Result<Vec<Athlete>, ProviderError> {
        let found: Option<Vec<Athlete>> = self
            .root(
                ATHLETE_SEARCH,
                "AthleteSearch",
                json!({ "query": query, "limit": limit }),
                "athleteSearch",
                Access::Licensed,
            )
            .await?;
        Ok(found.unwrap_or_default())
    }

    /// Runs a query and reads its root field: `null` is `None`, a value of another shape is
    /// `Unavailable`.
    async fn root<T: DeserializeOwned>(
        &self,
        query: &str,
        operation: &str,
        variables: Value,
        field: &str,
        access: Access,
    ) -> Result<Option<T>, ProviderError> {
        let mut data = self.graphql(query, operation, &variables, access).await?;
        let v = data.get_mut(field).map(Value::take).unwrap_or(Value::Null);
        if v.is_null() {
            return Ok(None);
        }
        serde_json::from_value(v)
            .map(Some)
            .map_err(|e| unexpected(format!("{field} has an unexpected shape: {e}")))
    }

    /// Sends one query and returns its `data`. A licensed query whose token was refused gets
    /// one more try with a new token.
    async fn graphql(
        &self,
        query: &str,
        operation: &str,
        variables: &Value,
        access: Access,
    ) -> Result<Value, ProviderError> {
        match self.graphql_once(query, operation, variables, access).await {
            Err(GqlError::Unauthenticated) if access == Access::Licensed => {
                *self.token.lock().await = None;
                self.graphql_once(query, operation, variables, access)
                    .await
                    .map_err(GqlError::into_provider)
            }
            other => other.map_err(GqlError::into_provider),
        }
    }

    async fn graphql_once(
        &self,
        query: &str,
        operation: &str,
        variables: &Value,
        access: Access,
    ) -> Result<Value, GqlError> {
        let bearer = match access {
            Access::Public => None,
            // A refused client (bad credentials) is not a stale token: no retry.
            Access::Licensed => Some(self.access_token().await.map_err(GqlError::Other)?),
        };
        let body = json!({ "query": query, "variables": variables, "operationName": operation });
        let url = self.url(&["api", "graphql"]);
        self.pace.wait().await;
        let resp = send(PROVIDER, Retry::Idempotent, || {
            let mut r = self
                .http
                .post(url.clone())
                .json(&body)
                .timeout(self.cfg.timeout);
            if let Some(t) = &bearer {
                r = r.bearer_auth(t);
            }
            r
        })
        .await?;
        let mut v: Value = json_or_error(PROVIDER, resp).await?;
        if let Some(first) = v["errors"].as_array().and_then(|e| e.first()) {
            return Err(graphql_error(first));
        }
        match v.get_mut("data").map(Value::take) {
            Some(d) if d.is_object() => Ok(d),
            _ => Err(unexpected("the answer has neither data nor errors".into()).into()),
        }
    }

    /// The cached token, or a new one when there is none or it is about to expire.
    async fn access_token(&self) -> Result<String, ProviderError> {
        let (Some(id), Some(secret)) = (&self.cfg.client_id, &self.cfg.client_secret) else {
            return Err(ProviderError::NotConfigured(NO_CREDENTIALS));
        };
        // Held across the fetch: concurrent queries wait for one token instead of each asking.
        let mut slot = self.token.lock().await;
        if let Some(t) = slot.as_ref()
            && Instant::now() < t.renew_at
        {
            return Ok(t.value.clone());
        }
        let url = self.url(&["oauth", "token"]);
        let resp = send(PROVIDER, Retry::Idempotent, || {
            self.http
                .post(url.clone())
                .basic_auth(id, Some(secret.expose()))
                .form(&[("grant_type", "client_credentials")])
                .timeout(self.cfg.timeout)
        })
        .await?;
        let t: TokenAnswer = json_or_error(PROVIDER, resp).await?;
        // Renewed 30 s early (or at half its life when shorter), so a query never carries a
        // token that expires in flight. No `expires_in`: one hour, as OAuth servers default.
        let life = Duration::from_secs(t.expires_in.unwrap_or(3600));
        let margin = Duration::from_secs(30).min(life / 2);
        *slot = Some(Token {
            value: t.access_token.clone(),
            renew_at: Instant::now() + life - margin,
        });
        Ok(t.access_token)
    }
}

/// A query's failure: the token was refused (worth one retry with a new one), or anything else.
enum GqlError {
    Unauthenticated,
    Other(ProviderError),
}

impl From<ProviderError> for GqlError {
    fn from(e: ProviderError) -> Self {
        // A token refused with HTTP 401 is the same as GraphQL's UNAUTHENTICATED.
        match e {
            ProviderError::Rejected { status: 401, .. } => GqlError::Unauthenticated,
            e => GqlError::Other(e),
        }
    }
}

impl GqlError {
    fn into_provider(self) -> ProviderError {
        match self {
            GqlError::Unauthenticated => ProviderError::Rejected {
                provider: PROVIDER,
                status: 401,
                message: "the access token was refused".into(),
            },
            GqlError::Other(e) => e,
        }
    }
}

/// Maps one GraphQL error by its `extensions.code` (Apollo's codes, which LiveHeats uses).
fn graphql_error(e: &Value) -> GqlError {
    let message: String = e["message"]
        .as_str()
        .unwrap_or("GraphQL error")
        .chars()
        .take(300)
        .collect();
    let code = e["extensions"]["code"].as_str().unwrap_or("");
    let rejected = |status| {
        GqlError::Other(ProviderError::Rejected {
            provider: PROVIDER,
            status,
            message: format!("{code}: {message}"),
        })
    };
    match code {
        "UNAUTHENTICATED" => GqlError::Unauthenticated,
        "FORBIDDEN" => rejected(403),
        "GRAPHQL_PARSE_FAILED" | "GRAPHQL_VALIDATION_FAILED" | "BAD_USER_INPUT" => rejected(400),
        // INTERNAL_SERVER_ERROR, a resolver's own code, none: the provider failed; a later
        // attempt may do better.
        _ => GqlError::Other(unexpected(format!("GraphQL error {code}: {message}"))),
    }
}

fn unexpected(message: String) -> ProviderError {
    ProviderError::Unavailable {
        provider: PROVIDER,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphql_errors_map_by_code() {
        let e = |code: &str| json!({ "message": "m", "extensions": { "code": code } });
        assert!(matches!(
            graphql_error(&e("UNAUTHENTICATED")),
            GqlError::Unauthenticated
        ));
        for (code, status) in [("FORBIDDEN", 403), ("BAD_USER_INPUT", 400)] {
            match graphql_error(&e(code)) {
                GqlError::Other(ProviderError::Rejected { status: s, .. }) => {
                    assert_eq!(s, status)
                }
                _ => panic!("{code}"),
            }
        }
        match graphql_error(&json!({ "message": "boom" })) {
            GqlError::Other(p @ ProviderError::Unavailable { .. }) => {
                assert!(!p.is_permanent());
                assert!(p.to_string().contains("boom"));
            }
            _ => panic!("no code"),
        }
    }
}
