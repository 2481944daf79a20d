//! Throwaway PostgreSQL databases on the server of an admin URL (`BENCH_PG_URL`, from
//! `scripts/ensure-postgres`): each scenario gets a fresh one, dropped afterwards.

use anyhow::{Context, Result};
use sqlx::{Connection, PgConnection};

/// `admin` with its database replaced by (or set to) `name`, its query kept.
pub fn db_url(admin: &str, name: &str) -> String {
    let (base, query) = match admin.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (admin, None),
    };
    // postgres://user@host:port[/db]: replace or add the path.
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[scheme_end..].find('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

/// Runs `statements` in turn on one admin connection.
async fn admin_sql(admin: &str, statements: &[String]) -> Result<()> {
    let mut c = PgConnection::connect(admin)
        .await
        .context("connecting to BENCH_PG_URL")?;
    for sql in statements {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.as_str()))
            .execute(&mut c)
            .await?;
    }
    c.close().await?;
    Ok(())
}

/// Creates database `name` (dropping a leftover of that name first); its URL.
pub async fn create_database(admin: &str, name: &str) -> Result<String> {
    let statements = [
        format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"),
        format!("CREATE DATABASE \"{name}\""),
    ];
    admin_sql(admin, &statements)
        .await
        .with_context(|| format!("creating database {name}"))?;
    Ok(db_url(admin, name))
}

/// Drops database `name`, its connections too; a failure is a warning.
pub async fn drop_database(admin: &str, name: &str) {
    let sql = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
    if let Err(e) = admin_sql(admin, &[sql]).await {
        eprintln!("warning: could not drop database {name}: {e:#}");
    }
}

/// Runs `f` with the URL of a fresh database `name`, dropped afterwards whatever `f` returns.
pub async fn with_database<T>(
    admin: &str,
    name: &str,
    f: impl AsyncFnOnce(&str) -> Result<T>,
) -> Result<T> {
    let url = create_database(admin, name).await?;
    let r = f(&url).await;
    drop_database(admin, name).await;
    r
}

#[cfg(test)]
mod tests {
    use super::db_url;

    #[test]
    fn db_url_replaces_or_adds_the_database() {
        let cases = [
            (
                "postgres://u@127.0.0.1:5432/postgres",
                "postgres://u@127.0.0.1:5432/x",
            ),
            (
                "postgres://u@127.0.0.1:5432",
                "postgres://u@127.0.0.1:5432/x",
            ),
            (
                "postgres://u:p@h/db?sslmode=disable",
                "postgres://u:p@h/x?sslmode=disable",
            ),
        ];
        for (admin, want) in cases {
            assert_eq!(db_url(admin, "x"), want);
        }
    }
}
