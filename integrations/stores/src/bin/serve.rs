//! `serve DIR SECONDS [--latency-ms MS]`: serves the files under `DIR` on the loopback interface
//! for `SECONDS` seconds (at most 600), printing the URL first, and answers each request `MS`
//! milliseconds after it came in (default 0), as an object store answers after tens of
//! milliseconds; `GET /.stats` counts the requests and bytes answered so far.

use std::io::Write;
use std::time::Duration;

use zarrs_scale_offset_cast_store_checks::server::Server;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, seconds, latency) = match args.as_slice() {
        [dir, seconds] => (dir, seconds, "0"),
        [dir, seconds, flag, ms] if flag == "--latency-ms" => (dir, seconds, ms.as_str()),
        _ => {
            eprintln!("usage: serve DIR SECONDS [--latency-ms MS]");
            std::process::exit(2);
        }
    };
    let seconds: u64 = seconds.parse().expect("SECONDS: a whole number");
    let latency = Duration::from_millis(latency.parse().expect("MS: a whole number"));
    let server = Server::start_with_latency(dir, latency).expect("a free port on 127.0.0.1");
    println!("{}", server.url());
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(seconds.min(600)));
    eprintln!(
        "serve: {} requests answered, {} bytes sent",
        server.requests(),
        server.bytes()
    );
}
