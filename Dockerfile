# One image for every Sightline role. The standalone fat jar carries the gateway, router, registry
# and worker-sim; SIGHTLINE_MAIN picks the role's main class (Spring Boot's PropertiesLauncher).
#   docker build -t sightline .
#   docker run -p 8080:8080 sightline                                   # the embedded default
#   docker run -e SIGHTLINE_MAIN=io.sightline.gateway.GatewayApplication sightline
FROM eclipse-temurin:21-jdk AS build
WORKDIR /src
COPY . .
RUN ./mvnw -B -q -DskipTests -pl standalone -am install

FROM eclipse-temurin:21-jre
RUN useradd --system --uid 10001 sightline
WORKDIR /app
COPY --from=build /src/standalone/target/sightline-standalone.jar /app/sightline.jar
USER sightline
ENV SIGHTLINE_MAIN=io.sightline.standalone.StandaloneApplication \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -Dai.djl.offline=true"
EXPOSE 8080
ENTRYPOINT ["sh", "-c", "exec java -Dloader.main=\"$SIGHTLINE_MAIN\" -cp /app/sightline.jar org.springframework.boot.loader.launch.PropertiesLauncher \"$@\"", "--"]
