//! Hosts of a test's own on one machine: each a Linux network namespace with its own address
//! on a bridge (the "switch"), reachable from the test's namespace through the bridge only, so a
//! process in it can be cut off the network ([`Hosts::cut`]) and put back ([`Hosts::heal`]) as a
//! machine losing its link would be. Needs root and `ip` (iproute2); [`Hosts::new`] answers
//! `None`, with the reason printed, elsewhere. Everything is removed on drop.

use std::process::Command;

pub struct Hosts {
    tag: String,
    /// The first three octets of the /24 (`10.a.b`).
    net: String,
    count: usize,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Hosts {
    /// `count` hosts, `10.a.b.11`… on the bridge `10.a.b.1` (this namespace's side).
    pub fn new(count: usize) -> Option<Hosts> {
        if !crate::is_root() {
            eprintln!("skipped: network namespaces need root");
            return None;
        }
        let r = rand_u16();
        let hosts = Hosts {
            tag: format!("{r:04x}"),
            net: format!("10.{}.{}", 100 + (r >> 8) % 100, r & 0xff),
            count,
        };
        match hosts.build() {
            Ok(()) => Some(hosts),
            Err(e) => {
                eprintln!("skipped: cannot make network namespaces here ({e})");
                None
            }
        }
    }

    fn bridge(&self) -> String {
        format!("mh{}br", self.tag)
    }

    fn veth(&self, i: usize) -> String {
        format!("mh{}v{i}", self.tag)
    }

    /// The namespace of host `i` (from 0).
    pub fn ns(&self, i: usize) -> String {
        format!("mh{}h{i}", self.tag)
    }

    /// Host `i`'s address.
    pub fn addr(&self, i: usize) -> String {
        format!("{}.{}", self.net, 11 + i)
    }

    /// The test's own address on the bridge (where a server for the hosts listens).
    pub fn gateway(&self) -> String {
        format!("{}.1", self.net)
    }

    /// The hosts' network, for a server's access rules.
    pub fn cidr(&self) -> String {
        format!("{}.0/24", self.net)
    }

    fn build(&self) -> Result<(), String> {
        let br = self.bridge();
        ip(&["link", "add", &br, "type", "bridge"])?;
        ip(&["addr", "add", &format!("{}/24", self.gateway()), "dev", &br])?;
        ip(&["link", "set", &br, "up"])?;
        for i in 0..self.count {
            let (ns, veth) = (self.ns(i), self.veth(i));
            ip(&["netns", "add", &ns])?;
            ip(&[
                "link", "add", &veth, "type", "veth", "peer", "name", "eth0", "netns", &ns,
            ])?;
            ip(&["link", "set", &veth, "master", &br, "up"])?;
            let inside = |args: &[&str]| {
                let mut all = vec!["netns", "exec", ns.as_str(), "ip"];
                all.extend_from_slice(args);
                ip(&all)
            };
            inside(&[
                "addr",
                "add",
                &format!("{}/24", self.addr(i)),
                "dev",
                "eth0",
            ])?;
            inside(&["link", "set", "eth0", "up"])?;
            inside(&["link", "set", "lo", "up"])?;
        }
        Ok(())
    }

    /// A command that runs `program` on host `i`.
    pub fn command(&self, i: usize, program: &std::path::Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns(i)]).arg(program);
        c
    }

    /// Cuts host `i` off the network: its packets go nowhere, nobody is told (no reset), as
    /// when a machine's link fails.
    pub fn cut(&self, i: usize) {
        ip(&["link", "set", &self.veth(i), "down"]).expect("link down");
    }

    /// Puts host `i` back on the network and waits (10 s at most) until it reaches `to`
    /// (`address:port`) again: the neighbour entries the cut left failed are flushed, as a
    /// machine's would be once its link comes back.
    pub fn heal(&self, i: usize, to: &str) {
        ip(&["link", "set", &self.veth(i), "up"]).expect("link up");
        let _ = ip(&["netns", "exec", &self.ns(i), "ip", "neigh", "flush", "all"]);
        let (host, port) = to.rsplit_once(':').expect("address:port");
        let probe = format!("exec 3<>/dev/tcp/{host}/{port}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let reached = Command::new("ip")
                .args(["netns", "exec", &self.ns(i), "bash", "-c", &probe])
                .output()
                .is_ok_and(|o| o.status.success());
            if reached {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "host {i} does not reach {to} after the link came back"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for i in 0..self.count {
            let _ = ip(&["netns", "del", &self.ns(i)]);
        }
        let _ = ip(&["link", "del", &self.bridge()]);
    }
}

fn rand_u16() -> u16 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    (nanos ^ std::process::id().rotate_left(16)) as u16
}
