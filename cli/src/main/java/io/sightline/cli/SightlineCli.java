package io.sightline.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code sightline} command line: offline tools over routing-core (image token counts, image
 * header probing, Dynamo-compatible block hashes). Every subcommand writes JSON lines to stdout and
 * one-line explanations to stderr; see {@code docs/cli.md}.
 *
 * <p>To add a subcommand, add its class to {@code subcommands} below; nothing else needs to change.
 */
@Command(
    name = "sightline",
    mixinStandardHelpOptions = true,
    versionProvider = SightlineCli.Version.class,
    description = "Sightline request-side tools: image tokens, image headers, KV block hashes.",
    subcommands = {
      ImageTokensCommand.class,
      ImageInfoCommand.class,
      BlockHashesCommand.class,
      EncodeChatCommand.class,
      CommandLine.HelpCommand.class,
    })
public final class SightlineCli implements Runnable {
  private final InputStream stdin;

  @Spec CommandSpec spec;

  public SightlineCli() {
    this(System.in);
  }

  /** A CLI whose commands read standard input from {@code stdin} (tests run it in-process). */
  public SightlineCli(InputStream stdin) {
    this.stdin = stdin;
  }

  InputStream stdin() {
    return stdin;
  }

  @Override
  public void run() {
    // No subcommand: show the usage on stderr and fail like a usage error.
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand");
  }

  /** A configured command line (standard streams). */
  public static CommandLine commandLine(InputStream in, PrintWriter out, PrintWriter err) {
    CommandLine cl = new CommandLine(new SightlineCli(in));
    cl.setOut(out);
    cl.setErr(err);
    return cl;
  }

  public static void main(String[] args) {
    CommandLine cl = new CommandLine(new SightlineCli());
    System.exit(cl.execute(args));
  }

  /** Version from the jar manifest when packaged. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = SightlineCli.class.getPackage().getImplementationVersion();
      return new String[] {"sightline " + (v == null ? "dev" : v)};
    }
  }
}
