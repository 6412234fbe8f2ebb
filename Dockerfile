# One image for every role: `platform api`, `platform worker`, `platform dev`.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/platform ./cmd/platform

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/platform /usr/local/bin/platform
USER nonroot
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/platform"]
CMD ["api"]
