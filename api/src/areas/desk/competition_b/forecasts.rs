//! Surf forecasts (`/w/{ws}/competition/forecasts`): the club's spots (the spot names of the
//! workspace's training sessions this fortnight, as `backfill-spots` resolved them), a search
//! of the spot provider, and one spot's hourly forecast (as `GET /api/surf/forecast`) with the
//! spot's sessions beside it: the swell and wind at each session's start and at each ride its
//! watch sessions recorded. A forecast runs from the current hour, so a ride before it has
//! no conditions to show; a provider that is not configured is said, never a failure.

use crate::areas::desk::{Chrome, Desk, opt};
use crate::areas::pages::{Notice, page};
use crate::http::extract::Query;
use crate::state::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Timelike;
use serde::Deserialize;
use shared::Error;
use shared::db::Ts;
use shared::domain::forecasts::{self, ForecastQuery, Target};
use shared::domain::spots;
use shared::providers::forecast::HourRow;

const HERE: &str = "/competition/forecasts";
/// Hours of forecast shown, one row every [`STEP`] hours.
const HOURS: u32 = 72;
const STEP: usize = 3;
/// Search results shown.
const FOUND: usize = 20;

pub struct ClubSpotRow {
    pub name: String,
    pub slug: Option<String>,
    pub sessions: i64,
}

pub struct SpotRow {
    pub slug: String,
    pub name: String,
    pub place: String,
}

/// The sea and wind of one hour, as shown.
pub struct Conditions {
    pub wave: String,
    pub swell: String,
    pub wind: String,
}

pub struct HourLine {
    pub time: String,
    pub iso: String,
    pub c: Conditions,
}

pub struct RideLine {
    pub athlete: String,
    pub time: String,
    pub iso: String,
    pub seconds: String,
    pub top: String,
    pub c: Option<Conditions>,
}

pub struct SessionLine {
    pub title: String,
    pub href: String,
    pub time: String,
    pub iso: String,
    pub c: Option<Conditions>,
    pub rides: Vec<RideLine>,
}

/// The chosen spot with its forecast, or why there is none.
pub struct Chosen {
    pub slug: String,
    pub name: String,
    pub place: String,
    pub source: String,
    pub problem: Option<String>,
    pub hours: Vec<HourLine>,
    pub sessions: Vec<SessionLine>,
}

#[derive(Template)]
#[template(path = "desk/competition_b/forecasts.html")]
pub struct ForecastsPage {
    c: Chrome,
    club: Vec<ClubSpotRow>,
    q: String,
    found: Option<Vec<SpotRow>>,
    search_problem: Option<String>,
    chosen: Option<Chosen>,
    notice: Option<Notice>,
    base: String,
}

#[derive(Deserialize, Default)]
pub struct ForecastsQuery {
    spot: Option<String>,
    q: Option<String>,
}

/// A compass point (16 of them) for a direction in degrees.
fn compass(deg: f64) -> &'static str {
    const POINTS: [&str; 16] = [
        "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW",
        "NW", "NNW",
    ];
    POINTS[((deg.rem_euclid(360.0) / 22.5).round() as usize) % 16]
}

fn conditions(h: &HourRow) -> Conditions {
    let num =
        |v: Option<f64>, unit: &str| v.map_or_else(|| "–".into(), |v| format!("{v:.1} {unit}"));
    let from = |d: Option<f64>| d.map_or_else(String::new, |d| format!(" {}", compass(d)));
    Conditions {
        wave: num(h.wave_height_m, "m"),
        swell: format!(
            "{} · {}{}",
            num(h.swell.height_m, "m"),
            num(h.swell.period_s, "s"),
            from(h.swell.direction_deg)
        ),
        wind: format!(
            "{}{}{}",
            num(h.wind_speed_kn, "kn"),
            from(h.wind_direction_deg),
            h.gust_kn
                .map_or_else(String::new, |g| format!(" (gusts {g:.0} kn)"))
        ),
    }
}

/// The forecast hour an instant falls in, if the forecast covers it.
fn at(hours: &[HourRow], t: Ts) -> Option<Conditions> {
    let hour = t.0.with_minute(0)?.with_second(0)?.with_nanosecond(0)?;
    hours.iter().find(|h| h.time == hour).map(conditions)
}

/// Why a provider read gave nothing, for the page: not configured is explained.
fn problem(desk: &Desk, e: &Error) -> String {
    if e.code == "provider_not_configured" {
        desk.cat.t("fc.not_configured").to_string()
    } else {
        Notice::of(e).message
    }
}

fn place(s: &shared::providers::spotsource::Spot) -> String {
    [s.region.as_deref(), s.country.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

async fn chosen(state: &AppState, desk: &Desk, slug_in: &str) -> Result<Chosen, Error> {
    let slug = forecasts::slug("spot", slug_in)?;
    let f = state.forecasters();
    // The spot read may need the provider; without one the page still shows the sessions.
    let (name, place) = match forecasts::find_spot(&state.db, f, &slug).await {
        Ok(spot) => (spot.name.clone(), place(&spot)),
        Err(e) if e.kind.is_server_error() => (slug.clone(), String::new()),
        Err(e) => return Err(e),
    };
    let q = ForecastQuery {
        target: Target::Spot(slug.clone()),
        hours: HOURS,
    };
    let (rows, source, problem) = match forecasts::forecast(&state.db, f, &q, Ts::now()).await {
        Ok(fc) => {
            let said = if fc.stale { "fc.stale" } else { "fc.fresh" };
            let source = format!(
                "{} · {}",
                desk.cat.t(&format!("fc.source.{}", fc.source.as_str())),
                desk.cat
                    .fill(said, &[("at", &desk.time(Ts(fc.fetched_at)))])
            );
            (fc.hours, source, None)
        }
        Err(e) if e.kind.is_server_error() || e.code == "spot_without_position" => {
            (Vec::new(), String::new(), Some(problem(desk, &e)))
        }
        Err(e) => return Err(e),
    };
    let now = Ts::now().0;
    let week = chrono::Duration::days(7);
    let sessions =
        spots::sessions_at(&state.db, desk.org(), &slug, Ts(now - week), Ts(now + week)).await?;
    Ok(Chosen {
        name,
        place,
        hours: rows
            .iter()
            .step_by(STEP)
            .map(|h| HourLine {
                time: desk.time(Ts(h.time)),
                iso: h.time.to_rfc3339(),
                c: conditions(h),
            })
            .collect(),
        sessions: sessions
            .into_iter()
            .map(|s| SessionLine {
                title: s.session.title.clone(),
                href: desk.path(&format!("/training/{}", s.session.id)),
                time: desk.time(s.session.starts_at),
                iso: s.session.starts_at.0.to_rfc3339(),
                c: at(&rows, s.session.starts_at),
                rides: s
                    .rides
                    .iter()
                    .map(|r| RideLine {
                        athlete: r.athlete.clone().unwrap_or_default(),
                        time: desk.time(r.at),
                        iso: r.at.0.to_rfc3339(),
                        seconds: format!("{:.0}", r.seconds),
                        top: format!("{:.1}", r.top_speed_kmh),
                        c: at(&rows, r.at),
                    })
                    .collect(),
            })
            .collect(),
        slug,
        source,
        problem,
    })
}

pub async fn show(
    State(state): State<AppState>,
    desk: Desk,
    Query(q): Query<ForecastsQuery>,
) -> Response {
    let made = async {
        let now = Ts::now().0;
        let week = chrono::Duration::days(7);
        let club = spots::club_spots(&state.db, desk.org(), Ts(now - week), Ts(now + week))
            .await?
            .into_iter()
            .map(|s| ClubSpotRow {
                slug: s.spot.map(|sp| sp.slug),
                name: s.name,
                sessions: s.sessions,
            })
            .collect();
        let query = opt(q.q.as_deref().unwrap_or("")).map(str::to_string);
        let mut notice = None;
        let (found, search_problem) = match &query {
            None => (None, None),
            Some(text) => {
                match forecasts::search_spots(&state.db, state.forecasters(), text).await {
                    Ok(spots) => (
                        Some(
                            spots
                                .iter()
                                .take(FOUND)
                                .map(|s| SpotRow {
                                    slug: s.slug.clone(),
                                    name: s.name.clone(),
                                    place: place(s),
                                })
                                .collect(),
                        ),
                        None,
                    ),
                    // A query too short or too long is said beside the field.
                    Err(e) if e.kind == shared::ErrorKind::BadRequest => {
                        notice = Some(Notice::of(&e));
                        (None, None)
                    }
                    Err(e) if e.kind.is_server_error() => (None, Some(problem(&desk, &e))),
                    Err(e) => return Err(e),
                }
            }
        };
        let chosen = match opt(q.spot.as_deref().unwrap_or("")) {
            Some(slug) => Some(chosen(&state, &desk, slug).await?),
            None => None,
        };
        let title = match &chosen {
            Some(c) => desk.cat.fill("fc.title_of", &[("spot", &c.name)]),
            None => desk.cat.t("fc.title").to_string(),
        };
        Ok::<_, Error>(ForecastsPage {
            c: Chrome::new(&desk, title),
            club,
            q: query.unwrap_or_default(),
            found,
            search_problem,
            chosen,
            notice,
            base: desk.path(HERE),
        })
    }
    .await;
    match made {
        Ok(p) if p.notice.is_some() => page(StatusCode::BAD_REQUEST, &p),
        Ok(p) => page(StatusCode::OK, &p),
        Err(e) => desk.error(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::compass;

    #[test]
    fn directions_read_as_compass_points() {
        assert_eq!(compass(0.0), "N");
        assert_eq!(compass(359.0), "N");
        assert_eq!(compass(247.5), "WSW");
        assert_eq!(compass(250.0), "WSW");
        assert_eq!(compass(90.0), "E");
        assert_eq!(compass(-45.0), "NW");
    }
}
