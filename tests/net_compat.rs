//! The async I/O traits a `TcpStream` implements, used through their
//! users' extension traits and adapters: `futures::io`, `tokio::io` and a
//! tokio-util codec (`Framed<_, LinesCodec>`).

mod common;

use common::net::{pair, run, spawn_echo_server, within};
use futures::{SinkExt, StreamExt};
use lawn_rt::net::TcpStream;
use tokio_util::codec::{Framed, LinesCodec};

#[test]
fn futures_io_extension_traits_round_trip() {
    use futures::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    run("futures io", || async {
        let (client, server) = pair().await;
        let server = lawn_rt::spawn(async move {
            let (reader, mut writer) = server.into_split();
            let mut lines = BufReader::new(reader).lines();
            while let Some(line) = lines.next().await {
                writer.write_all(line?.to_uppercase().as_bytes()).await?;
                writer.write_all(b"\n").await?;
            }
            Ok::<_, std::io::Error>(())
        });
        let (mut reader, mut writer) = client.into_split();
        within("write", writer.write_all(b"one\ntwo\n"))
            .await
            .unwrap();
        within("flush", writer.flush()).await.unwrap();
        within("close", writer.close()).await.unwrap();
        let mut reply = String::new();
        within("read", reader.read_to_string(&mut reply))
            .await
            .unwrap();
        assert_eq!(reply, "ONE\nTWO\n");
        within("server", server).await.unwrap().unwrap();
    });
}

#[test]
fn futures_io_copy_between_two_streams() {
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    run("futures io copy", || async {
        let addr = spawn_echo_server().await;
        let (mut source, relay_in) = pair().await;
        let relay_out = within("connect", TcpStream::connect(addr)).await.unwrap();
        // source -> relay_in ==copy==> relay_out -> echo -> relay_out
        let (mut echo_back, mut to_echo) = relay_out.into_split();
        let relay = lawn_rt::spawn(async move {
            let (mut from_source, _keep) = relay_in.into_split();
            let copied = futures::io::copy(&mut from_source, &mut to_echo).await?;
            to_echo.close().await?;
            Ok::<_, std::io::Error>(copied)
        });
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7) as u8).collect();
        let sending = {
            let data = data.clone();
            lawn_rt::spawn(async move {
                source.write_all(&data).await?;
                source.close().await
            })
        };
        let mut back = Vec::new();
        within("echoed", echo_back.read_to_end(&mut back))
            .await
            .unwrap();
        within("send", sending).await.unwrap().unwrap();
        assert_eq!(
            within("relay", relay).await.unwrap().unwrap(),
            data.len() as u64
        );
        assert!(back == data, "the copy came back changed");
    });
}

#[test]
fn tokio_io_extension_traits_round_trip() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    run("tokio io", || async {
        let (mut client, mut server) = pair().await;
        within("write", client.write_all(b"tokio traits"))
            .await
            .unwrap();
        within("shutdown", client.shutdown()).await.unwrap();
        let mut got = Vec::new();
        within("read", server.read_to_end(&mut got)).await.unwrap();
        assert_eq!(got, b"tokio traits");
        within("reply", server.write_u32(0xdead_beef))
            .await
            .unwrap();
        assert_eq!(
            within("read u32", client.read_u32()).await.unwrap(),
            0xdead_beef
        );
        let mut buf = [0; 4];
        assert_eq!(
            within("read after the shutdown", server.read(&mut buf))
                .await
                .unwrap(),
            0
        );
    });
}

#[test]
fn tokio_util_framed_lines_over_a_lawn_rt_stream() {
    run("framed lines", || async {
        let (client, server) = pair().await;
        let server = lawn_rt::spawn(async move {
            let mut framed = Framed::new(server, LinesCodec::new());
            let mut count = 0;
            while let Some(line) = framed.next().await {
                let line = line.map_err(std::io::Error::other)?;
                count += 1;
                framed
                    .send(format!("{count}: {line}"))
                    .await
                    .map_err(std::io::Error::other)?;
            }
            Ok::<_, std::io::Error>(count)
        });
        let mut framed = Framed::new(client, LinesCodec::new());
        for word in ["alpha", "beta", "gamma"] {
            within("send", framed.send(word)).await.unwrap();
        }
        for (i, word) in ["alpha", "beta", "gamma"].iter().enumerate() {
            let line = within("next", framed.next()).await.unwrap().unwrap();
            assert_eq!(line, format!("{}: {word}", i + 1));
        }
        drop(framed); // end of file for the server
        assert_eq!(within("server", server).await.unwrap().unwrap(), 3);
    });
}
