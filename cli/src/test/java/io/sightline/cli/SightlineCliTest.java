package io.sightline.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.routing.multimodal.MmHashes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI run in-process with captured streams. */
class SightlineCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Run(int exit, String out, String err) {
    List<JsonNode> lines() throws IOException {
      List<JsonNode> out = new ArrayList<>();
      for (String l : this.out.split("\n")) {
        if (!l.isBlank()) {
          out.add(JSON.readTree(l));
        }
      }
      return out;
    }
  }

  static Run run(String stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        SightlineCli.commandLine(
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintWriter(out),
                new PrintWriter(err))
            .execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  static Path resource(String name) throws URISyntaxException {
    return Path.of(SightlineCliTest.class.getResource("/" + name).toURI());
  }

  @Test
  void imageTokensForAQwenModel() throws Exception {
    Run r =
        run(
            "",
            "image-tokens",
            "--model-dir",
            resource("models/Qwen3-VL-8B-Instruct").toString(),
            "--size",
            "640x480",
            "--size",
            "336x336");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "{\"width\":640,\"height\":480,\"num_image_tokens\":300,\"family\":\"qwen3_vl\","
                + "\"placeholder_token_id\":151655}\n"
                + "{\"width\":336,\"height\":336,\"num_image_tokens\":100,\"family\":\"qwen3_vl\","
                + "\"placeholder_token_id\":151655}\n");
  }

  @Test
  void imageTokensUnknownFamilyExitsTwoWithOneLine(@TempDir Path tmp) throws Exception {
    Files.writeString(tmp.resolve("config.json"), "{\"model_type\":\"llama\"}");
    Run r = run("", "image-tokens", "--model-dir", tmp.toString(), "--size", "10x10");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip()).doesNotContain("\n").contains("model_type 'llama'");
  }

  @Test
  void imageTokensRejectedSizeAndBadSizeSyntax() throws Exception {
    String dir = resource("models/Qwen3-VL-8B-Instruct").toString();
    Run r = run("", "image-tokens", "--model-dir", dir, "--size", "1x300", "--size", "28x28");
    assertThat(r.exit()).isEqualTo(1);
    List<JsonNode> lines = r.lines();
    assertThat(lines.get(0).path("error").asText()).contains("aspect ratio");
    assertThat(lines.get(1).path("num_image_tokens").asInt()).isEqualTo(64);

    Run bad = run("", "image-tokens", "--model-dir", dir, "--size", "12by4");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains("'12by4' is not a size WxH");
  }

  @Test
  void imageInfoForFilesAndDataUris() throws Exception {
    Path png = resource("images/pillow_hopper.png");
    byte[] bytes = Files.readAllBytes(png);
    String dataUri = "data:image/png;base64," + Base64.getEncoder().encodeToString(bytes);
    Run r = run("", "image-info", png.toString(), dataUri);
    assertThat(r.exit()).as(r.err()).isZero();
    String expected =
        "{\"format\":\"png\",\"width\":128,\"height\":128,\"mm_hash\":"
            + Long.toUnsignedString(MmHashes.ofBytes(bytes))
            + "}";
    assertThat(r.out()).isEqualTo(expected + "\n" + expected + "\n");
  }

  @Test
  void imageInfoReportsBadImagesAndCarriesOn(@TempDir Path tmp) throws Exception {
    Path junk =
        Files.write(tmp.resolve("junk.bin"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    Path truncated = resource("images/truncated_jpeg.jpg");
    Run r =
        run(
            "",
            "image-info",
            "--verify",
            junk.toString(),
            tmp.resolve("missing.png").toString(),
            truncated.toString(),
            resource("images/pillow_hopper.png").toString());
    assertThat(r.exit()).isEqualTo(1);
    List<JsonNode> lines = r.lines();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0).path("error").asText()).contains("not a PNG, JPEG");
    assertThat(lines.get(1).path("error").asText()).contains("cannot read file");
    assertThat(lines.get(2).path("error").asText()).contains("jpeg: file truncated");
    assertThat(lines.get(3).path("width").asInt()).isEqualTo(128);
  }

  @Test
  void imageInfoOverHttpUsesRangeRequestsAndHashesTheUrl() throws Exception {
    byte[] jpeg = Files.readAllBytes(resource("images/smg_large.jpg"));
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    List<String> ranges = new ArrayList<>();
    server.createContext(
        "/",
        ex -> {
          String range = ex.getRequestHeaders().getFirst("Range");
          ranges.add(String.valueOf(range));
          byte[] body = jpeg;
          int status = 200;
          if (range != null && range.startsWith("bytes=0-")) {
            int end = Integer.parseInt(range.substring(8));
            body = java.util.Arrays.copyOf(jpeg, Math.min(jpeg.length, end + 1));
            status = 206;
          }
          ex.sendResponseHeaders(status, body.length);
          try (var os = ex.getResponseBody()) {
            os.write(body);
          }
        });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/cat.jpg?sig=abc";
      Run r = run("", "image-info", url);
      assertThat(r.exit()).as(r.out() + r.err()).isZero();
      JsonNode line = r.lines().get(0);
      assertThat(line.path("width").asInt()).isEqualTo(4000);
      assertThat(line.path("height").asInt()).isEqualTo(3000);
      assertThat(line.path("mm_hash").bigIntegerValue())
          .isEqualTo(new java.math.BigInteger(Long.toUnsignedString(MmHashes.ofUrl(url))));
      assertThat(ranges).first().isEqualTo("bytes=0-4095");

      Run content = run("", "image-info", "--content-hash", url);
      assertThat(content.lines().get(0).path("mm_hash").bigIntegerValue())
          .isEqualTo(new java.math.BigInteger(Long.toUnsignedString(MmHashes.ofBytes(jpeg))));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void blockHashesDynamoVectorsAsUnsignedDecimals() throws Exception {
    String in =
        String.join(
            "\n",
            "{\"tokens\":[0,1,2,3,4,5,6,7],\"block_size\":4,\"lora_name\":null,\"cache_namespace\":null}",
            "{\"tokens\":[0,1,2,3],\"block_size\":4,\"lora_name\":\"adapter-a\",\"cache_namespace\":\"tenant-a\"}",
            "{\"tokens\":[10,20,151655],\"block_size\":4,\"placeholder_token_id\":151655,"
                + "\"images\":[{\"mm_hash\":4660,\"num_tokens\":2}],\"scheme\":\"gen2\"}",
            "{\"tokens\":[10,20,151655],\"block_size\":4,\"placeholder_token_id\":151655,"
                + "\"images\":[{\"mm_hash\":4660,\"num_tokens\":2}],\"scheme\":\"gen1\"}",
            "");
    Run r = run(in, "block-hashes");
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    String[] lines = r.out().split("\n");
    assertThat(lines[0])
        .isEqualTo(
            "{\"routing_token_ids\":[0,1,2,3,4,5,6,7],"
                + "\"local_hashes\":[9143094415614847814,12124091508212882195],"
                + "\"sequence_hashes\":[9143094415614847814,9510318385840434533]}");
    assertThat(lines[1]).contains("\"local_hashes\":[8269515957840517240]");
    assertThat(lines[2])
        .isEqualTo(
            "{\"routing_token_ids\":[10,20,1004660,1004660],"
                + "\"local_hashes\":[16777335482164611395],"
                + "\"sequence_hashes\":[16777335482164611395]}");
    assertThat(lines[3]).contains("\"local_hashes\":[4731275913830988595]");
  }

  @Test
  void blockHashesBadLinesGetErrorsOthersStillAnswered() throws Exception {
    String in =
        String.join(
            "\n",
            "{\"tokens\":[1,2],\"block_size\":0}",
            "not json",
            "{\"tokens\":[9],\"block_size\":1,\"placeholder_token_id\":9,\"images\":[]}",
            "{\"tokens\":[9],\"block_size\":1,\"placeholder_token_id\":9,"
                + "\"images\":[{\"mm_hash\":18446744073709551615,\"num_tokens\":1}],\"scheme\":\"gen1\"}",
            "{\"tokens\":[9],\"block_size\":1,\"placeholder_token_id\":9,"
                + "\"images\":[{\"mm_hash\":18446744073709551616,\"num_tokens\":1}]}",
            "{\"tokens\":[-1],\"block_size\":1}",
            "");
    Run r = run(in, "block-hashes");
    assertThat(r.exit()).isEqualTo(1);
    List<JsonNode> lines = r.lines();
    assertThat(lines).hasSize(6);
    assertThat(lines.get(0).path("error").asText()).contains("block_size");
    assertThat(lines.get(1).path("error").asText()).contains("not valid JSON");
    assertThat(lines.get(1).path("line").asInt()).isEqualTo(2);
    assertThat(lines.get(2).path("error").asText()).contains("1 image placeholder(s)");
    assertThat(lines.get(3).has("error")).isFalse();
    assertThat(lines.get(3).path("local_hashes").get(0).isBigInteger()).isTrue();
    assertThat(lines.get(4).path("error").asText()).contains("outside [0, 2^64)");
    assertThat(lines.get(5).path("error").asText()).contains("tokens[0]");
  }

  @Test
  void helpEverywhere() {
    for (String[] args :
        new String[][] {
          {"--help"},
          {"image-tokens", "--help"},
          {"image-info", "--help"},
          {"block-hashes", "--help"}
        }) {
      Run r = run("", args);
      assertThat(r.exit()).isZero();
      assertThat(r.out()).contains("Usage:");
    }
    assertThat(run("").exit()).isEqualTo(2);
  }
}
