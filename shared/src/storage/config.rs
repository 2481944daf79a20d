//! Object storage configuration from environment-style variables.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `STORAGE_BACKEND` | `local` or `s3` | `local` |
//! | `STORAGE_DIR` | root of the local store | `$DATA_DIR/objects` |
//! | `S3_ENDPOINT` | `http(s)://host[:port]` of an S3-compatible server; unset for AWS | unset |
//! | `S3_REGION` | signing region (and the region new buckets go to) | `us-east-1` |
//! | `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY` | static credentials, required with `s3` | — |
//! | `S3_BUCKET_PREFIX` | bucket name = prefix + store name | empty |
//! | `S3_FORCE_PATH_STYLE` | `http://host/bucket/key` instead of `http://bucket.host/key` | `true` |
//!
//! The `S3_*` variables are read only when `STORAGE_BACKEND=s3`.

use std::path::{Path, PathBuf};

use url::Url;

use super::Store;
use crate::config::{ConfigError, Secret};

#[derive(Clone, Debug)]
pub struct StorageConfig {
    pub backend: StorageBackend,
}

#[derive(Clone, Debug)]
pub enum StorageBackend {
    Local { dir: PathBuf },
    S3(S3Config),
}

#[derive(Clone, Debug)]
pub struct S3Config {
    /// Custom endpoint (S3-compatible server); `None` for AWS itself.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: String,
    pub secret_access_key: Secret,
    pub bucket_prefix: String,
    pub force_path_style: bool,
}

impl S3Config {
    /// The bucket holding `store`.
    pub fn bucket(&self, store: Store) -> String {
        format!("{}{}", self.bucket_prefix, store.name())
    }
}

fn err(var: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        var,
        message: message.into(),
    }
}

impl StorageConfig {
    /// A local store rooted at `dir` (tests, tools).
    pub fn local(dir: impl Into<PathBuf>) -> Self {
        StorageConfig {
            backend: StorageBackend::Local { dir: dir.into() },
        }
    }

    pub fn from_env(data_dir: &Path) -> Result<Self, ConfigError> {
        Self::from_lookup(
            |k| std::env::var(k).ok().filter(|v| !v.is_empty()),
            data_dir,
        )
    }

    /// Builds the configuration from any variable source; `get` returns `None` for unset (and,
    /// in `from_env`, empty) variables.
    pub fn from_lookup(
        get: impl Fn(&str) -> Option<String>,
        data_dir: &Path,
    ) -> Result<StorageConfig, ConfigError> {
        let backend = match get("STORAGE_BACKEND").as_deref() {
            None | Some("local") => StorageBackend::Local {
                dir: get("STORAGE_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| data_dir.join("objects")),
            },
            Some("s3") => StorageBackend::S3(s3_from_lookup(&get)?),
            Some(_) => return Err(err("STORAGE_BACKEND", "must be local or s3")),
        };
        Ok(StorageConfig { backend })
    }
}

fn s3_from_lookup(get: &impl Fn(&str) -> Option<String>) -> Result<S3Config, ConfigError> {
    let endpoint = get("S3_ENDPOINT")
        .map(|v| {
            let u = Url::parse(&v).map_err(|e| err("S3_ENDPOINT", format!("not a URL ({e})")))?;
            if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
                return Err(err(
                    "S3_ENDPOINT",
                    "must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:9000",
                ));
            }
            if u.query().is_some() || u.fragment().is_some() || u.path() != "/" {
                return Err(err(
                    "S3_ENDPOINT",
                    "must be scheme://host[:port] only, without path or query",
                ));
            }
            Ok(v.trim_end_matches('/').to_string())
        })
        .transpose()?;

    let region = get("S3_REGION").unwrap_or_else(|| "us-east-1".into());
    if !region
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(err("S3_REGION", "must be a region name such as us-east-1"));
    }

    let required =
        |var: &'static str| get(var).ok_or_else(|| err(var, "required when STORAGE_BACKEND=s3"));
    let access_key_id = required("S3_ACCESS_KEY_ID")?;
    let secret_access_key = Secret::from(required("S3_SECRET_ACCESS_KEY")?);

    let bucket_prefix = get("S3_BUCKET_PREFIX").unwrap_or_default();
    check_bucket_prefix(&bucket_prefix)?;

    let force_path_style = match get("S3_FORCE_PATH_STYLE").as_deref() {
        None => true,
        Some("1" | "true" | "yes" | "on") => true,
        Some("0" | "false" | "no" | "off") => false,
        Some(_) => return Err(err("S3_FORCE_PATH_STYLE", "must be true or false")),
    };

    Ok(S3Config {
        endpoint,
        region,
        access_key_id,
        secret_access_key,
        bucket_prefix,
        force_path_style,
    })
}

/// Bucket names are 3–63 characters of `a-z 0-9 . -`, starting and ending with a letter or
/// digit; the store names end with a letter, so the prefix only has to start well and be short.
fn check_bucket_prefix(prefix: &str) -> Result<(), ConfigError> {
    let longest_store = Store::ALL.iter().map(|s| s.name().len()).max().unwrap_or(0);
    let bad = |m: &str| Err(err("S3_BUCKET_PREFIX", m));
    if prefix.len() + longest_store > 63 {
        return bad("too long: bucket names (prefix + store name) are at most 63 characters");
    }
    if !prefix
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
    {
        return bad("may contain only lowercase letters, digits, '-' and '.'");
    }
    if prefix.starts_with(['-', '.']) || prefix.contains("..") || prefix.ends_with('.') {
        return bad("must start with a letter or digit and have no '..' or trailing '.'");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Result<StorageConfig, ConfigError> {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        StorageConfig::from_lookup(|k| m.get(k).cloned(), Path::new("/srv/data"))
    }

    const S3: [(&str, &str); 3] = [
        ("STORAGE_BACKEND", "s3"),
        ("S3_ACCESS_KEY_ID", "AKID"),
        ("S3_SECRET_ACCESS_KEY", "sk-not-for-logs"),
    ];

    #[test]
    fn default_is_a_local_store_under_the_data_dir() {
        match cfg(&[]).unwrap().backend {
            StorageBackend::Local { dir } => assert_eq!(dir, Path::new("/srv/data/objects")),
            other => panic!("{other:?}"),
        }
        match cfg(&[("STORAGE_DIR", "/mnt/objects")]).unwrap().backend {
            StorageBackend::Local { dir } => assert_eq!(dir, Path::new("/mnt/objects")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn s3_defaults_and_bucket_names() {
        let StorageBackend::S3(s3) = cfg(&S3).unwrap().backend else {
            panic!("not s3")
        };
        assert_eq!(s3.endpoint, None);
        assert_eq!(s3.region, "us-east-1");
        assert!(s3.force_path_style);
        assert_eq!(s3.bucket(Store::Sidecars), "sidecars");
        assert!(!format!("{s3:?}").contains("sk-not-for-logs"));

        let mut vars = S3.to_vec();
        vars.extend([
            ("S3_ENDPOINT", "http://127.0.0.1:9000/"),
            ("S3_REGION", "eu-west-3"),
            ("S3_BUCKET_PREFIX", "surf-prod-"),
            ("S3_FORCE_PATH_STYLE", "false"),
        ]);
        let StorageBackend::S3(s3) = cfg(&vars).unwrap().backend else {
            panic!("not s3")
        };
        assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(s3.region, "eu-west-3");
        assert!(!s3.force_path_style);
        assert_eq!(s3.bucket(Store::RawUploads), "surf-prod-raw-uploads");
    }

    #[test]
    fn malformed_or_missing_values_name_the_variable() {
        for (var, val) in [
            ("STORAGE_BACKEND", "gcs"),
            ("S3_ENDPOINT", "127.0.0.1:9000"),
            ("S3_ENDPOINT", "ftp://host"),
            ("S3_ENDPOINT", "http://host/bucket"),
            ("S3_REGION", "us east"),
            ("S3_BUCKET_PREFIX", "Upper-"),
            ("S3_BUCKET_PREFIX", "-dash"),
            ("S3_BUCKET_PREFIX", &"x".repeat(50)),
            ("S3_FORCE_PATH_STYLE", "sometimes"),
        ] {
            let mut vars = S3.to_vec();
            vars.push((var, val));
            let e = cfg(&vars).unwrap_err();
            assert_eq!(e.var, var, "{var}={val}: {e}");
            assert!(e.to_string().contains(var));
        }
        for missing in ["S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] {
            let vars: Vec<_> = S3.iter().copied().filter(|(k, _)| *k != missing).collect();
            assert_eq!(cfg(&vars).unwrap_err().var, missing);
        }
    }

    #[test]
    fn s3_variables_are_ignored_by_the_local_backend() {
        assert!(cfg(&[("S3_ENDPOINT", "garbage")]).is_ok());
    }
}
