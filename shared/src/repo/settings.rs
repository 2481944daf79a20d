//! Platform settings changed at run time by an admin (e.g. the signup mode), overriding the
//! configured defaults.

use crate::db::{Executor, Ts};
use crate::{execute, sql};
use serde_json::Value;
use sqlx::types::Json;

pub async fn get(x: &mut impl Executor, key: &str) -> Result<Option<Value>, sqlx::Error> {
    let v: Option<Json<Value>> = sql!(x, c => sqlx::query_scalar("SELECT value FROM settings WHERE key = $1")
        .bind(key).fetch_optional(&mut *c).await)?;
    Ok(v.map(|j| j.0))
}

pub async fn set(x: &mut impl Executor, key: &str, value: &Value) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"
        )
        .bind(key)
        .bind(Json(value))
        .bind(Ts::now())
    )?;
    Ok(())
}
