# A small specrun image: the static binary on an empty base.
#   docker build -t specrun:dev .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/specrun ./cmd/specrun

FROM scratch
COPY --from=build /out/specrun /specrun
WORKDIR /tmp
ENTRYPOINT ["/specrun"]
