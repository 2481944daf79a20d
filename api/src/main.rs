//! `api`: serves the HTTP API (and, on the embedded default, runs jobs in-process).
//! `api migrate`: applies database migrations and exits (the Procfile's release step).
//! `api backup PATH`: copies the embedded default (SQLite database, local objects, generated
//! key) into the new or empty directory PATH while the service runs (`api::backup`).

use api::{app, serve, state::AppState};

/// mimalloc rather than glibc's malloc: a request makes dozens of small short-lived
/// allocations (headers, extensions, boxed futures, the JSON body), and glibc's
/// `malloc`/`free` were 8 % of `GET /api/auth/me`'s CPU (README, "Load").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    worker::install_crypto_provider();
    let cfg = serve::load_config();
    let _log = shared::logging::init(cfg.log_json);
    let db = serve::connect(&cfg).await?;
    let cmd = std::env::args().nth(1);
    match cmd.as_deref() {
        Some("migrate") => {
            serve::migrate(&db).await?;
            tracing::info!("migrations applied");
            return Ok(());
        }
        Some("backup") => {
            let Some(dest) = std::env::args().nth(2) else {
                eprintln!("usage: api backup PATH (a new or empty directory)");
                std::process::exit(2);
            };
            let s = match api::backup::run(&cfg, &db, std::path::Path::new(&dest)).await {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("api backup: {e:#}");
                    std::process::exit(1);
                }
            };
            println!(
                "backup written to {dest}: {} ({} bytes, integrity ok), {} objects ({} bytes){}",
                api::backup::DATABASE_FILE,
                s.database_bytes,
                s.objects,
                s.object_bytes,
                if s.secret_key { ", secret.key" } else { "" }
            );
            db.close().await;
            return Ok(());
        }
        Some(c @ ("grant-admin" | "revoke-admin")) => {
            let Some(email) = std::env::args().nth(2) else {
                eprintln!("usage: api {c} EMAIL (an existing account)");
                std::process::exit(2);
            };
            serve::migrate(&db).await?;
            let on = c == "grant-admin";
            match shared::domain::accounts::set_platform_admin(&db, &email, on).await {
                Ok(_) if on => println!("{email} is a platform admin"),
                Ok(_) => println!("{email} is no longer a platform admin"),
                Err(e) => {
                    eprintln!("api {c}: {e}");
                    std::process::exit(1);
                }
            }
            db.close().await;
            return Ok(());
        }
        None | Some("serve") => {}
        Some(other) => {
            eprintln!(
                "unknown command {other:?}; usage: api [serve|migrate|backup PATH|grant-admin EMAIL|revoke-admin EMAIL]"
            );
            std::process::exit(2);
        }
    }
    serve::migrate(&db).await?;
    // One endpoint for the process: its HTTP metrics, the queue gauges and, on the embedded
    // default, the jobs it runs.
    let _metrics = match cfg.metrics_addr {
        Some(addr) => {
            let m = worker::metrics::start(addr, Some(db.clone())).await?;
            app::describe_metrics();
            Some(m)
        }
        None => None,
    };
    let bind = cfg.bind_addr;
    let embedded = if cfg.embedded_worker {
        Some(serve::start_embedded_worker(&cfg, &db).await?)
    } else {
        None
    };
    let state = AppState::new(cfg, db.clone()).await?;
    let router = app::build(state);
    let listener = tokio::net::TcpListener::bind(bind).await?;
    tracing::info!(%bind, "api listening");
    serve::serve_http(listener, router, shutdown_signal(), serve::SHUTDOWN_GRACE).await;
    if let Some(w) = embedded {
        w.shutdown().await;
    }
    db.close().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}
