package io.sightline.standalone;

import io.sightline.gateway.config.GatewayProperties;
import io.sightline.sim.SimFleet;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Prints, once everything is registered, where the gateway listens, whether an API key is needed,
 * and a request to paste — the first thing a newcomer needs.
 */
@Component
@Order(10)
class StartupBanner implements ApplicationRunner {
  /** A 448x448 checkerboard PNG (256 image tokens for Qwen2.5-VL) shipped with the app. */
  static final String SAMPLE_IMAGE_RESOURCE = "/sample/checkerboard-448.png";

  private final StandaloneProperties props;
  private final Environment env;
  private final GatewayProperties gateway;
  private final ObjectProvider<SimFleet> fleet;

  StartupBanner(
      StandaloneProperties props,
      Environment env,
      GatewayProperties gateway,
      ObjectProvider<SimFleet> fleet) {
    this.props = props;
    this.env = env;
    this.gateway = gateway;
    this.fleet = fleet;
  }

  /** Writes a chat request with the bundled sample image next to the unpacked model files. */
  Path writeSampleRequest() {
    try (InputStream in = StartupBanner.class.getResourceAsStream(SAMPLE_IMAGE_RESOURCE)) {
      String image = Base64.getEncoder().encodeToString(in.readAllBytes());
      String body =
          "{\"model\":\""
              + props.getModelName()
              + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":["
              + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,"
              + image
              + "\"}},{\"type\":\"text\",\"text\":\"What is in this picture?\"}]}]}";
      Path file =
          props.getModelCacheDir().toAbsolutePath().getParent().resolve("sample-chat-request.json");
      Files.createDirectories(file.getParent());
      Files.writeString(file, body);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the sample request", e);
    }
  }

  @Override
  public void run(ApplicationArguments args) {
    if (!props.isBanner()) {
      return;
    }
    String port = env.getProperty("local.server.port", env.getProperty("server.port", "8080"));
    String url = "http://localhost:" + port;
    SimFleet workers = fleet.getIfAvailable();
    boolean auth = gateway.getAuth().isEnabled();
    String keyLine =
        auth
            ? "API keys: required (sightline.gateway.auth.keys); send 'Authorization: Bearer <key>'"
            : "API key: none needed (auth is off in the embedded default)";
    String authHeader = auth ? " -H 'Authorization: Bearer $SIGHTLINE_API_KEY'" : "";
    Path request = writeSampleRequest();
    StringBuilder out = new StringBuilder();
    out.append("\n==================== Sightline (embedded default) ====================\n");
    out.append("Gateway:  ").append(url).append("/v1  (OpenAI-compatible)\n");
    out.append("Model:    ").append(props.getModelName()).append('\n');
    out.append("Workers:  ")
        .append(workers == null ? 0 : workers.size())
        .append(" simulated vLLM workers\n");
    out.append(keyLine).append('\n');
    out.append("Try it (run twice and watch x-sightline-overlap rise):\n");
    out.append("  curl -si ")
        .append(url)
        .append("/v1/chat/completions -H 'Content-Type: application/json'")
        .append(authHeader)
        .append(" \\\n    -d @")
        .append(request)
        .append(
            " | grep -i -o -e 'x-sightline-[a-z]*: [^[:space:]]*' -e '\"cached_tokens\":[0-9]*'\n");
    out.append("Health:   ").append(url).append("/actuator/health\n");
    out.append("======================================================================\n");
    System.out.println(out);
  }
}
