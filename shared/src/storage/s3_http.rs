//! The HTTP client under the S3 SDK: hyper's, with its read buffer bounded
//! ([`crate::video::UPSTREAM_READ_BUFFER`]).
//!
//! Why our own: the SDK's default client reads up to hyper's default buffer (about 408 KiB) per
//! read, so every video stream proxied from S3 to a slow player held that much (measured: about
//! 1.2 MiB per stream in `scripts/bench-video`). Its builder does not expose the buffer size, so
//! this module builds the same kind of client (hyper-util's pooled HTTP/1.1 client, rustls with
//! the platform's roots) with `http1_max_buf_size` set, and plugs it into the SDK through its
//! `HttpClient` trait. Timeouts follow the SDK's connector settings (connect, and read: the time
//! to the response head).

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::Response;
use aws_smithy_types::body::SdkBody;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector as TcpConnector;
use hyper_util::rt::TokioExecutor;
use std::time::Duration;

pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// The client; cheap to clone (one connection pool).
#[derive(Clone)]
pub struct BoundedClient {
    client: Client<HttpsConnector<TcpConnector>, SdkBody>,
}

impl std::fmt::Debug for BoundedClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundedClient")
            .field("read_buffer", &crate::video::UPSTREAM_READ_BUFFER)
            .finish()
    }
}

impl BoundedClient {
    pub fn new() -> anyhow::Result<Self> {
        let mut tcp = TcpConnector::new();
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        tcp.set_connect_timeout(Some(CONNECT_TIMEOUT));
        let tls = hyper_rustls::HttpsConnectorBuilder::new()
            // Named, not the process default: the build links both rustls providers.
            .with_provider_and_native_roots(rustls::crypto::aws_lc_rs::default_provider())?
            .https_or_http()
            .enable_http1()
            .wrap_connector(tcp);
        let client = Client::builder(TokioExecutor::new())
            .http1_max_buf_size(crate::video::UPSTREAM_READ_BUFFER)
            .pool_idle_timeout(IDLE_TIMEOUT)
            .build(tls);
        Ok(BoundedClient { client })
    }
}

impl HttpClient for BoundedClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(Connector {
            client: self.client.clone(),
            read_timeout: settings.read_timeout(),
        })
    }
}

#[derive(Clone)]
struct Connector {
    client: Client<HttpsConnector<TcpConnector>, SdkBody>,
    read_timeout: Option<Duration>,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector")
            .field("read_timeout", &self.read_timeout)
            .finish()
    }
}

impl HttpConnector for Connector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let request = match request.try_into_http1x() {
            Ok(r) => r,
            Err(e) => return HttpConnectorFuture::ready(Err(ConnectorError::user(e.into()))),
        };
        let this = self.clone();
        HttpConnectorFuture::new(async move {
            let sent = this.client.request(request);
            let response = match this.read_timeout {
                Some(limit) => tokio::time::timeout(limit, sent)
                    .await
                    .map_err(|e| ConnectorError::timeout(e.into()))?,
                None => sent.await,
            }
            .map_err(connector_error)?;
            let response = response.map(SdkBody::from_body_1_x);
            Response::try_from(response).map_err(|e| ConnectorError::other(e.into(), None))
        })
    }
}

/// How the SDK should treat a failed call: connection and I/O failures are retried as
/// transient, anything else is reported as it is.
fn connector_error(e: hyper_util::client::legacy::Error) -> ConnectorError {
    let io = e.is_connect()
        || std::error::Error::source(&e).is_some_and(|s| {
            s.downcast_ref::<hyper::Error>()
                .is_some_and(|h| h.is_closed() || h.is_canceled() || h.is_incomplete_message())
                || s.downcast_ref::<std::io::Error>().is_some()
        });
    if io {
        ConnectorError::io(e.into())
    } else {
        ConnectorError::other(e.into(), None)
    }
}
