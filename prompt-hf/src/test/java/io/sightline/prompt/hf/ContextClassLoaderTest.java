package io.sightline.prompt.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.routing.prompt.EncodedPrompt;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Server threads under a nested-jar launcher (Spring Boot's PropertiesLauncher) carry a context
 * class loader that cannot see Jinjava's EL implementation; rendering must not depend on it.
 */
class ContextClassLoaderTest {

  @Test
  void rendersOnAThreadWhoseContextLoaderCannotSeeJinjava() throws Exception {
    HfModel model = TestModels.model("qwen2_5_vl");
    var request =
        new ObjectMapper()
            .readTree(
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}");
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                outcome.set(model.promptEncoder().encodeChat(request));
              } catch (Exception | LinkageError e) {
                outcome.set(e);
              }
            });
    thread.setContextClassLoader(ClassLoader.getPlatformClassLoader());
    thread.start();
    thread.join(30_000);
    assertThat(outcome.get()).isInstanceOf(EncodedPrompt.class);
    EncodedPrompt prompt = (EncodedPrompt) outcome.get();
    assertThat(prompt.exact()).isTrue();
    assertThat(prompt.prompt()).contains("Hello there");
  }
}
