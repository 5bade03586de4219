package io.sightline.gateway.support;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A worker that crashes mid-stream: it answers {@code 200 text/event-stream} with two chunks and
 * then resets the TCP connection (SO_LINGER 0), as a killed engine process does. Written on a raw
 * socket because an HTTP server library would end the chunked body cleanly.
 */
public final class DyingWorker implements AutoCloseable {
  private final ServerSocket socket;
  private final Thread thread;

  public DyingWorker() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    thread = new Thread(this::serve, "dying-worker");
    thread.setDaemon(true);
    thread.start();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  private void serve() {
    while (!socket.isClosed()) {
      try (Socket s = socket.accept()) {
        InputStream in = new BufferedInputStream(s.getInputStream());
        int contentLength = 0;
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
          if (c == '\n') {
            String l = line.toString().strip();
            if (l.isEmpty()) {
              break;
            }
            if (l.toLowerCase().startsWith("content-length:")) {
              contentLength = Integer.parseInt(l.substring(15).strip());
            }
            line.setLength(0);
          } else {
            line.append((char) c);
          }
        }
        in.readNBytes(contentLength);
        OutputStream out = s.getOutputStream();
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        for (String word : new String[] {"partial ", "answer "}) {
          String event =
              "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                  + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                  + word
                  + "\"},\"finish_reason\":null}]}\n\n";
          byte[] b = event.getBytes(StandardCharsets.UTF_8);
          out.write((Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(b);
          out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
        }
        Thread.sleep(100);
        s.setSoLinger(true, 0); // RST instead of FIN: the engine "crashed"
      } catch (IOException | InterruptedException e) {
        // next connection
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
