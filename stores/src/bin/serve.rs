//! `serve DIR SECONDS`: serves the files under `DIR` on the loopback interface for `SECONDS`
//! seconds (at most 600), printing the URL first; `GET /.stats` counts the requests and bytes
//! answered so far.

use std::io::Write;
use std::time::Duration;

use zarrs_scale_offset_cast_stores::server::Server;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(seconds)) = (args.next(), args.next()) else {
        eprintln!("usage: serve DIR SECONDS");
        std::process::exit(2);
    };
    let seconds: u64 = seconds.parse().expect("SECONDS: a whole number");
    let server = Server::start(dir).expect("a free port on 127.0.0.1");
    println!("{}", server.url());
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(seconds.min(600)));
    eprintln!(
        "serve: {} requests answered, {} bytes sent",
        server.requests(),
        server.bytes()
    );
}
