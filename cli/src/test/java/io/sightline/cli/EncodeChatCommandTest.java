package io.sightline.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sightline.prompt.hf.testing.TestModels;
import io.sightline.routing.multimodal.MmHashes;
import io.sightline.routing.multimodal.spec.ProcessorSpecs;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class EncodeChatCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(new EncodeChatCommand());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int exit = cmd.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static byte[] png(int w, int h) throws Exception {
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    img.setRGB(1, 1, 0xff8800);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ImageIO.write(img, "png", bytes);
    return bytes.toByteArray();
  }

  @Test
  void encodesAChatRequestWithADataUriAndALocalFile(@TempDir Path tmp) throws Exception {
    byte[] first = png(56, 84);
    byte[] second = png(300, 200);
    Path file = tmp.resolve("b.png");
    Files.write(file, second);
    String request =
        """
        {"model":"m","messages":[{"role":"user","content":[
          {"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}},
          {"type":"image_url","image_url":{"url":"%s"}},
          {"type":"text","text":"Describe both."}]}]}"""
            .formatted(Base64.getEncoder().encodeToString(first), file.toUri());
    Path input = tmp.resolve("req.json");
    Files.writeString(input, request);
    Path modelDir = TestModels.dir("qwen2_5_vl");

    Run r = run("--model-dir", modelDir.toString(), "--input", input.toString());

    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode out = JSON.readTree(r.out());
    assertThat(out.get("num_images").asInt()).isEqualTo(2);
    assertThat(out.get("mode").asText()).isEqualTo("exact");
    assertThat(out.get("prompt").asText())
        .isEqualTo(
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
                + "<|vision_start|><|image_pad|><|vision_end|><|vision_start|><|image_pad|>"
                + "<|vision_end|>Describe both.<|im_end|>\n<|im_start|>assistant\n");
    int[] ids = JSON.convertValue(out.get("token_ids"), int[].class);
    int[] routing = JSON.convertValue(out.get("routing_token_ids"), int[].class);
    var spec = ProcessorSpecs.fromModelDirectory(modelDir).orElseThrow();
    int n1 = spec.numImageTokens(56, 84);
    int n2 = spec.numImageTokens(300, 200);
    assertThat(routing).hasSize(ids.length - 2 + n1 + n2);
    // Gen-1: each placeholder becomes N copies of the placeholder id, text ids unchanged around it.
    int firstPad = indexOf(ids, 151655);
    assertThat(Arrays.copyOfRange(routing, firstPad, firstPad + n1 + 1 + n2 + 1))
        .containsOnly(151655, 151653, 151652);
    assertThat(Arrays.copyOf(routing, firstPad)).containsExactly(Arrays.copyOf(ids, firstPad));
    assertThat(out.get("images").get(0).get("width").asInt()).isEqualTo(56);
    assertThat(out.get("images").get(1).get("height").asInt()).isEqualTo(200);
    assertThat(out.get("images").get(0).get("mm_hash").asText())
        .isEqualTo(MmHashes.forwardable(MmHashes.ofBytes(first)));
  }

  @Test
  void gen2FillsWithPadValuesAndOffKeepsThePrompt(@TempDir Path tmp) throws Exception {
    byte[] image = png(56, 56);
    String request =
        """
        {"messages":[{"role":"user","content":[
          {"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]}]}"""
            .formatted(Base64.getEncoder().encodeToString(image));
    Path input = tmp.resolve("req.json");
    Files.writeString(input, request);
    String dir = TestModels.dir("qwen2_5_vl").toString();

    JsonNode gen2 =
        JSON.readTree(
            run("--model-dir", dir, "--input", input.toString(), "--scheme", "gen2").out());
    int pad = MmHashes.padValue(MmHashes.ofBytes(image));
    assertThat(JSON.convertValue(gen2.get("routing_token_ids"), int[].class)).contains(pad);

    JsonNode off =
        JSON.readTree(
            run("--model-dir", dir, "--input", input.toString(), "--scheme", "off").out());
    assertThat(off.get("routing_token_ids")).isEqualTo(off.get("token_ids"));
  }

  @Test
  void remoteUrlsNeedADefaultSize(@TempDir Path tmp) throws Exception {
    Path input = tmp.resolve("req.json");
    Files.writeString(
        input,
        """
        {"messages":[{"role":"user","content":[
          {"type":"image_url","image_url":{"url":"https://example.com/x.png"}},
          {"type":"text","text":"hi"}]}]}""");
    String dir = TestModels.dir("llava_1_5").toString();
    Run noSize = run("--model-dir", dir, "--input", input.toString());
    assertThat(noSize.exit()).isEqualTo(1);
    assertThat(noSize.err()).contains("--default-image-size");

    Run sized =
        run("--model-dir", dir, "--input", input.toString(), "--default-image-size", "640x480");
    assertThat(sized.exit()).as(sized.err()).isZero();
    JsonNode out = JSON.readTree(sized.out());
    // LLaVA-1.5: one <image> becomes 576 tokens whatever the size.
    assertThat(out.get("routing_token_ids").size())
        .isEqualTo(out.get("token_ids").size() - 1 + 576);
  }

  @Test
  void badInputIsAClearError(@TempDir Path tmp) throws Exception {
    Path input = tmp.resolve("req.json");
    String dir = TestModels.dir("llava_1_5").toString();
    Files.writeString(input, "{\"messages\": 7}");
    Run bad = run("--model-dir", dir, "--input", input.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.err()).contains("'messages' must be an array");

    Files.writeString(input, "not json");
    assertThat(run("--model-dir", dir, "--input", input.toString()).exit()).isEqualTo(2);
    assertThat(
            run("--model-dir", tmp.resolve("nope").toString(), "--input", input.toString()).exit())
        .isEqualTo(2);
    Files.writeString(
        input,
        "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
            + "\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}}]}]}");
    Run notImage = run("--model-dir", dir, "--input", input.toString());
    assertThat(notImage.exit()).isEqualTo(1);
    assertThat(notImage.err()).contains("image 0");
  }

  @Test
  void runsAsASubcommandReadingStdin() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var in =
        new java.io.ByteArrayInputStream(
            "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    int exit =
        SightlineCli.commandLine(in, new PrintWriter(out), new PrintWriter(err))
            .execute("encode-chat", "--model-dir", TestModels.dir("llava_1_5").toString());
    assertThat(exit).as(err.toString()).isZero();
    JsonNode json = JSON.readTree(out.toString());
    assertThat(json.get("prompt").asText()).isEqualTo("USER: Hello ASSISTANT:");
    assertThat(json.get("num_images").asInt()).isZero();
    assertThat(json.get("routing_token_ids")).isEqualTo(json.get("token_ids"));
  }

  private static int indexOf(int[] a, int v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return -1;
  }
}
