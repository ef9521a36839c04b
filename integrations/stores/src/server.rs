//! A static HTTP file server on the loopback interface, for reading Zarr arrays over HTTP in tests.
//!
//! It serves the files under one folder to `GET` and `HEAD` requests, with single byte ranges
//! (`bytes=a-b`, `bytes=a-`, `bytes=-n`) answered `206 Partial Content`. A request for several
//! ranges is answered with the whole file (`200 OK`), as object stores such as Amazon S3 do. Each
//! response closes its connection. A fixed pool of worker threads answers, with read and write
//! timeouts, and the server stops when dropped. It can answer each request after a delay
//! ([`Server::start_with_latency`]), as an object store answers after tens of milliseconds:
//! requests in flight at once wait at once, as many as there are workers.
//!
//! `GET /.stats` answers `requests N bytes M`: the requests answered and the body bytes sent so far
//! (itself not counted), so that a client can measure what each of its reads asks of the server.

use std::fs;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Worker threads answering requests (so many requests are answered at once).
const WORKERS: usize = 64;
/// The longest a client may take to send its request or read the response.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head read.
const MAX_HEAD: usize = 16 << 10;

/// A running server; it stops when dropped.
pub struct Server {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    counts: Arc<Counts>,
    threads: Vec<JoinHandle<()>>,
}

/// What the server has answered.
#[derive(Default)]
struct Counts {
    requests: AtomicUsize,
    bytes: AtomicUsize,
}

impl Server {
    /// Serves the files under `root` on a free port of 127.0.0.1.
    ///
    /// # Errors
    /// Returns the error of binding the port.
    pub fn start(root: impl Into<PathBuf>) -> io::Result<Self> {
        Self::start_with_latency(root, Duration::ZERO)
    }

    /// [`Server::start`], answering each request (but `/.stats`) `latency` after it came in.
    ///
    /// # Errors
    /// Returns the error of binding the port.
    pub fn start_with_latency(root: impl Into<PathBuf>, latency: Duration) -> io::Result<Self> {
        let root: Arc<Path> = root.into().into();
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let address = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let counts = Arc::new(Counts::default());
        let (send, receive) = sync_channel::<TcpStream>(WORKERS * 4);
        let receive = Arc::new(Mutex::new(receive));
        let mut threads: Vec<JoinHandle<()>> = (0..WORKERS)
            .map(|_| {
                let (root, receive, counts) =
                    (Arc::clone(&root), Arc::clone(&receive), Arc::clone(&counts));
                std::thread::spawn(move || work(&root, &receive, &counts, latency))
            })
            .collect();
        let accept_stop = Arc::clone(&stop);
        threads.push(std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream
                    && send.send(stream).is_err()
                {
                    break;
                }
            }
            // Dropping `send` ends the workers.
        }));
        Ok(Self {
            address,
            stop,
            counts,
            threads,
        })
    }

    /// The server's URL, ending in `/`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// The number of requests answered so far.
    #[must_use]
    pub fn requests(&self) -> usize {
        self.counts.requests.load(Ordering::SeqCst)
    }

    /// The body bytes sent so far.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.counts.bytes.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accepting thread.
        let _ = TcpStream::connect(self.address);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn work(root: &Path, receive: &Mutex<Receiver<TcpStream>>, counts: &Counts, latency: Duration) {
    loop {
        let stream = match receive.lock() {
            Ok(receive) => receive.recv(),
            Err(_) => return,
        };
        let Ok(stream) = stream else {
            return;
        };
        // An error (a client gone away) ends only that connection.
        let _ = answer(root, stream, counts, latency);
    }
}

/// A parsed request: the method, the path and the `Range` header, if any.
struct Request {
    method: String,
    path: String,
    range: Option<String>,
}

fn read_request(stream: &TcpStream) -> io::Result<Option<Request>> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    let (method, path) = (method.to_string(), target.to_string());
    let mut range = None;
    let mut head = line.len();
    loop {
        let mut header = String::new();
        let n = reader.read_line(&mut header)?;
        head += n;
        if n == 0 || header == "\r\n" || header == "\n" || head > MAX_HEAD {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("range")
        {
            range = Some(value.trim().to_string());
        }
    }
    Ok(Some(Request {
        method,
        path,
        range,
    }))
}

/// Answers one request `latency` after it came in, counting it (but for `/.stats`, answered at
/// once) in `counts`.
fn answer(root: &Path, stream: TcpStream, counts: &Counts, latency: Duration) -> io::Result<()> {
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_write_timeout(Some(TIMEOUT))?;
    stream.set_nodelay(true)?;
    let Some(request) = read_request(&stream)? else {
        return Ok(());
    };
    if request.path != "/.stats" {
        std::thread::sleep(latency);
    }
    let mut stream = Response {
        stream,
        counts: Some(counts),
    };
    if request.method != "GET" && request.method != "HEAD" {
        return stream.respond("405 Method Not Allowed", 0, &[], None);
    }
    if request.path == "/.stats" {
        let stats = format!(
            "requests {} bytes {}\n",
            counts.requests.load(Ordering::SeqCst),
            counts.bytes.load(Ordering::SeqCst)
        );
        let body = stats.as_bytes();
        stream.counts = None;
        return stream.respond("200 OK", body.len(), &[], Some(body));
    }
    let Some(mut file) = resolve(root, &request.path).and_then(|path| fs::File::open(path).ok())
    else {
        return stream.respond("404 Not Found", 0, &[], None);
    };
    let size = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
    let get = request.method == "GET";
    // Only the bytes asked for are read from the file.
    let mut read = |start: usize, end: usize| -> io::Result<Vec<u8>> {
        let mut bytes = vec![0; end - start];
        if get {
            file.seek(SeekFrom::Start(start as u64))?;
            file.read_exact(&mut bytes)?;
        }
        Ok(bytes)
    };
    match request
        .range
        .as_deref()
        .map(|range| parse_range(range, size))
    {
        Some(Range::One(start, end)) => {
            let content_range = format!("bytes {start}-{}/{size}", end - 1);
            let part = read(start, end)?;
            stream.respond(
                "206 Partial Content",
                part.len(),
                &[("Content-Range", &content_range)],
                get.then_some(&part[..]),
            )
        }
        Some(Range::Unsatisfiable) => stream.respond(
            "416 Range Not Satisfiable",
            0,
            &[("Content-Range", &format!("bytes */{size}"))],
            None,
        ),
        Some(Range::Whole) | None => {
            let bytes = read(0, size)?;
            stream.respond(
                "200 OK",
                size,
                &[("Accept-Ranges", "bytes")],
                get.then_some(&bytes[..]),
            )
        }
    }
}

/// The path of the file a request's target names under `root`, if it names one safely.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?.trim_start_matches('/');
    let relative = Path::new(path);
    if relative
        .components()
        .any(|component| !matches!(component, Component::Normal(_)))
    {
        return None;
    }
    let file = root.join(relative);
    file.is_file().then_some(file)
}

/// What a `Range` header asks of a file.
enum Range {
    /// One range: the first byte and the end (exclusive).
    One(usize, usize),
    /// Several ranges, or a header this server does not read: the whole file.
    Whole,
    /// A range beyond the file.
    Unsatisfiable,
}

fn parse_range(header: &str, size: usize) -> Range {
    let Some(spec) = header.strip_prefix("bytes=") else {
        return Range::Whole;
    };
    if spec.contains(',') {
        return Range::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return Range::Whole;
    };
    let number = |s: &str| s.trim().parse::<usize>().ok();
    let (start, end) = match (first.trim().is_empty(), number(first), number(last)) {
        // `bytes=-n`: the last n bytes.
        (true, _, Some(n)) => (size.saturating_sub(n), size),
        (false, Some(start), None) if last.trim().is_empty() => (start, size),
        (false, Some(start), Some(last)) if last >= start => (start, (last + 1).min(size)),
        _ => return Range::Whole,
    };
    if start >= size || start >= end {
        Range::Unsatisfiable
    } else {
        Range::One(start, end)
    }
}

/// A connection to answer, and the counts its answer adds to.
struct Response<'c> {
    stream: TcpStream,
    counts: Option<&'c Counts>,
}

impl Response<'_> {
    /// Writes a response: `length` is the `Content-Length` (of the body a `GET` gets, also for
    /// `HEAD`, which gets no body). The request and its body bytes are counted before anything
    /// is written, so that a client that has the answer finds it in `/.stats`.
    fn respond(
        &mut self,
        status: &str,
        length: usize,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> io::Result<()> {
        if let Some(counts) = self.counts {
            counts.requests.fetch_add(1, Ordering::SeqCst);
            counts
                .bytes
                .fetch_add(body.map_or(0, <[u8]>::len), Ordering::SeqCst);
        }
        let mut head =
            format!("HTTP/1.1 {status}\r\nContent-Length: {length}\r\nConnection: close\r\n");
        for (name, value) in headers {
            head.push_str(name);
            head.push_str(": ");
            head.push_str(value);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        self.stream.write_all(head.as_bytes())?;
        if let Some(body) = body {
            self.stream.write_all(body)?;
        }
        self.stream.flush()
    }
}
