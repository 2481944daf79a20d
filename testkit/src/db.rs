//! A fresh, empty database per test: a SQLite file in a temporary directory, or (when
//! `TEST_DATABASE_URL` names a PostgreSQL server) a new database on that server, dropped again
//! when the guard goes. A database rather than a schema, so each test has its own
//! LISTEN/NOTIFY channels and extensions too.

use std::path::PathBuf;

pub struct TestDb {
    /// What `DATABASE_URL` should be.
    pub url: String,
    /// A private temporary directory (DATA_DIR), removed on drop.
    pub dir: PathBuf,
    pg: Option<(String, String)>,
}

fn unique() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{}_{}_{}",
        std::process::id(),
        nanos,
        N.fetch_add(1, Ordering::Relaxed)
    )
}

impl TestDb {
    pub async fn new() -> TestDb {
        let dir = std::env::temp_dir().join(format!("surfcoach-test-{}", unique()));
        std::fs::create_dir_all(&dir).unwrap();
        match std::env::var("TEST_DATABASE_URL") {
            Ok(admin) if !admin.is_empty() => {
                let name = format!("t_{}", unique());
                let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&admin)
                    .await
                    .expect("TEST_DATABASE_URL reachable");
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&mut conn)
                    .await
                    .expect("create test database");
                let mut url = url::Url::parse(&admin).expect("TEST_DATABASE_URL is a URL");
                url.set_path(&format!("/{name}"));
                TestDb {
                    url: url.to_string(),
                    dir,
                    pg: Some((admin, name)),
                }
            }
            _ => TestDb {
                url: format!("sqlite://{}/test.db", dir.display()),
                dir,
                pg: None,
            },
        }
    }

    pub fn is_postgres(&self) -> bool {
        self.pg.is_some()
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some((admin, name)) = self.pg.take() {
            // Drop runs inside the test's runtime: use a thread with its own.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    if let Ok(mut c) =
                        <sqlx::PgConnection as sqlx::Connection>::connect(&admin).await
                    {
                        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                        )))
                        .execute(&mut c)
                        .await;
                    }
                });
            })
            .join();
        }
    }
}
