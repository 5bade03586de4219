package io.sightline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Runs {@code examples/demo.sh} — the script the README tells newcomers to run — against the
 * embedded platform: the repeated image must overlap fully, a different image must not.
 */
@StandalonePlatformTest
@EnabledIf("toolsPresent")
class DemoScriptTest {
  private static final Path SCRIPT = Path.of("..", "examples", "demo.sh");

  @LocalServerPort int port;

  static boolean toolsPresent() {
    return Files.isRegularFile(SCRIPT)
        && new File("/usr/bin/curl").canExecute()
        && new File("/usr/bin/base64").canExecute();
  }

  @Test
  void demoShowsOverlapRiseAndDrop() throws Exception {
    Process p =
        new ProcessBuilder("bash", SCRIPT.toString(), "http://127.0.0.1:" + port)
            .redirectErrorStream(true)
            .start();
    boolean done = p.waitFor(120, TimeUnit.SECONDS);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!done) {
      p.destroyForcibly();
    }
    assertThat(done).as("demo finished").isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("OK: overlap rose to").contains("2. image A again");
  }
}
