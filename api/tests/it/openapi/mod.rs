//! The OpenAPI document against the server (issue 18): one schema per name, every documented
//! request body accepted by its route, required query parameters marked required, every answer
//! a route gives documented, and schemathesis over the whole document.

mod bodies;
mod document;
mod queries;
mod responses;
mod schemathesis;

use serde_json::Value;

/// The document the server serves, as JSON.
pub fn document() -> Value {
    serde_json::to_value(api::routes::registry().openapi()).unwrap()
}

/// A schema with its `$ref` followed (components only).
pub fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r.rsplit('/').next().unwrap();
            resolve(doc, &doc["components"]["schemas"][name])
        }
        None => schema,
    }
}

use crate::support::*;
use api::registry::{RouteDef, path_params};
use axum::http::Method;
use serde_json::json;

/// A coach with a workspace, an athlete and a training session: the ids the routes' paths
/// and bodies refer to.
pub struct Seeded {
    pub app: TestApp,
    pub coach: Session,
    /// Another coach of the workspace (the one athletes are handed over to).
    pub second_coach: Session,
    pub bearer: String,
    pub athlete_id: String,
    pub training_id: String,
}

pub async fn seeded() -> Seeded {
    let app = TestApp::new().await;
    let coach = app.signup("coach@example.com").await;
    let (bearer, _) = app.phone_tokens("coach@example.com").await;
    let second_coach = add_member(&app, coach.org_id, "second@example.com", "coach").await;
    let athlete = new_athlete(
        &app,
        &coach,
        json!({ "firstName": "Mia", "lastName": "Silva", "birthDate": born(20, 0) }),
    )
    .await;
    let starts = chrono::Utc::now() + chrono::Duration::days(1);
    let session = new_training_session(
        &app,
        &coach,
        json!({
            "title": "Morning",
            "startsAt": starts.to_rfc3339(),
            "endsAt": (starts + chrono::Duration::hours(2)).to_rfc3339(),
        }),
    )
    .await;
    Seeded {
        athlete_id: id(&athlete),
        training_id: id(&session),
        app,
        coach,
        second_coach,
        bearer,
    }
}

impl Seeded {
    /// The route's path with its parameters filled: the seeded row where the route names one,
    /// else an id that exists nowhere (the route then answers 404 after reading its input).
    pub fn concrete(&self, path: &str) -> String {
        let mut p = path.to_string();
        for name in path_params(path) {
            let value = match name {
                "id" if path.starts_with("/api/orgs/") || path.starts_with("/api/admin/orgs/") => {
                    self.coach.org_id.to_string()
                }
                "id" if path.starts_with("/api/athletes/") => self.athlete_id.clone(),
                "athleteId"
                    if path.starts_with("/api/strategy/") || path.starts_with("/api/reports/") =>
                {
                    self.athlete_id.clone()
                }
                "id" if path.starts_with("/api/training-sessions/") => self.training_id.clone(),
                "id" if path.starts_with("/api/coaches/") => self.coach.user_id.to_string(),
                _ => "0190f000-0000-7000-8000-000000000001".to_string(),
            };
            p = p.replace(&format!("{{{name}}}"), &value);
            p = p.replace(&format!("{{*{name}}}"), &value);
        }
        p
    }

    /// A request as the signed-in coach: the web session, or the bearer token where the route
    /// takes bearer tokens only.
    pub fn call(&self, r: &RouteDef, path: &str) -> Req<'_> {
        let req = self.app.req(r.method.clone(), path);
        if r.bearer_only {
            req.bearer(&self.bearer)
        } else {
            req.session(&self.coach)
        }
    }
}

pub fn is_write(m: &Method) -> bool {
    !matches!(*m, Method::GET | Method::HEAD)
}
