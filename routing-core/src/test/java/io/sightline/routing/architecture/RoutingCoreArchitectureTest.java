package io.sightline.routing.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** routing-core stays framework-free: no Spring, Netty, gRPC, Redis, etcd, NATS or ZMQ. */
@AnalyzeClasses(
    packages = "io.sightline.routing",
    importOptions = ImportOption.DoNotIncludeTests.class)
class RoutingCoreArchitectureTest {

  @ArchTest
  static final ArchRule noFrameworks =
      noClasses()
          .that()
          .resideInAPackage("io.sightline.routing..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.springframework..",
              "io.netty..",
              "reactor..",
              "io.grpc..",
              "io.lettuce..",
              "redis.clients..",
              "io.etcd..",
              "io.vertx..",
              "io.nats..",
              "org.zeromq..",
              "zmq..",
              "jakarta.servlet..",
              "ai.djl..",
              "com.hubspot.jinjava..");
}
