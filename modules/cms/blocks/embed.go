package blocks

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// provider is a site whose players a page may embed. parse reads the
// video, map or track out of a URL of the provider's pages and returns the
// player URL the platform builds from it, or "" when the URL is not one of
// its pages: the iframe's src is always the provider's origin followed by
// an id of a fixed alphabet.
type provider struct {
	name, origin string
	hosts        []string
	parse        func(u *url.URL) string
}

var (
	youtubeID  = regexp.MustCompile(`^[A-Za-z0-9_-]{11}$`)
	vimeoID    = regexp.MustCompile(`^[0-9]{1,12}$`)
	vimeoHash  = regexp.MustCompile(`^[0-9a-f]{6,20}$`)
	mapsPB     = regexp.MustCompile(`^[A-Za-z0-9!._%:,+*~-]+$`) // bounded by the url field's length
	spotifyID  = regexp.MustCompile(`^[A-Za-z0-9]{22}$`)
	spotifyKey = regexp.MustCompile(`^(track|album|playlist|episode|show|artist)$`)
	loomID     = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// providers are the embeddable sites. YouTube plays from its no-cookie
// domain, which sets no tracking cookies until a visitor plays.
var providers = []provider{
	{"YouTube", "https://www.youtube-nocookie.com", []string{"youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be", "www.youtube-nocookie.com", "youtube-nocookie.com"}, youtube},
	{"Vimeo", "https://player.vimeo.com", []string{"vimeo.com", "www.vimeo.com", "player.vimeo.com"}, vimeo},
	{"Google Maps", "https://www.google.com", []string{"www.google.com", "google.com", "maps.google.com"}, googleMaps},
	{"Spotify", "https://open.spotify.com", []string{"open.spotify.com"}, spotify},
	{"Loom", "https://www.loom.com", []string{"www.loom.com", "loom.com"}, loom},
}

// FrameSources are the origins an embed block's iframe loads from: the
// frame-src of the site's Content-Security-Policy.
func FrameSources() []string {
	out := make([]string, len(providers))
	for i, p := range providers {
		out[i] = p.origin
	}
	return out
}

func providerNames() []string {
	out := make([]string, len(providers))
	for i, p := range providers {
		out[i] = p.name
	}
	return out
}

// player is the iframe URL for a page of an allowed provider, and the
// provider's name; "" when raw is not such a page.
func player(raw string) (src, name string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.Port() != "" {
		return "", ""
	}
	host := strings.ToLower(u.Hostname())
	for _, p := range providers {
		if slices.Contains(p.hosts, host) {
			if src := p.parse(u); src != "" {
				return src, p.name
			}
		}
	}
	return "", ""
}

// segments are the non-empty parts of a URL's path.
func segments(u *url.URL) []string {
	return strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
}

// youtube: watch?v=ID, youtu.be/ID, /embed/ID and /shorts/ID.
func youtube(u *url.URL) string {
	seg := segments(u)
	var id string
	switch {
	case strings.EqualFold(u.Hostname(), "youtu.be") && len(seg) == 1:
		id = seg[0]
	case len(seg) == 1 && seg[0] == "watch":
		id = u.Query().Get("v")
	case len(seg) == 2 && (seg[0] == "embed" || seg[0] == "shorts"):
		id = seg[1]
	}
	if !youtubeID.MatchString(id) {
		return ""
	}
	return "https://www.youtube-nocookie.com/embed/" + id
}

// vimeo: vimeo.com/ID, vimeo.com/ID/HASH (unlisted) and the player's
// /video/ID?h=HASH.
func vimeo(u *url.URL) string {
	seg := segments(u)
	if len(seg) > 0 && seg[0] == "video" {
		seg = seg[1:]
		if h := u.Query().Get("h"); h != "" {
			seg = append(seg, h)
		}
	}
	if len(seg) == 0 || len(seg) > 2 || !vimeoID.MatchString(seg[0]) {
		return ""
	}
	src := "https://player.vimeo.com/video/" + seg[0]
	if len(seg) == 2 {
		if !vimeoHash.MatchString(seg[1]) {
			return ""
		}
		src += "?h=" + seg[1]
	}
	return src
}

// googleMaps: the embed URL Google's "share, embed a map" gives; its pb
// parameter is kept as written, in Google's own alphabet.
func googleMaps(u *url.URL) string {
	pb, ok := strings.CutPrefix(u.RawQuery, "pb=")
	if u.Path != "/maps/embed" || !ok || !mapsPB.MatchString(pb) {
		return ""
	}
	return "https://www.google.com/maps/embed?pb=" + pb
}

// spotify: open.spotify.com/KIND/ID, with or without /embed/ or an
// /intl-xx/ prefix.
func spotify(u *url.URL) string {
	seg := segments(u)
	if len(seg) > 0 && (seg[0] == "embed" || strings.HasPrefix(seg[0], "intl-")) {
		seg = seg[1:]
	}
	if len(seg) != 2 || !spotifyKey.MatchString(seg[0]) || !spotifyID.MatchString(seg[1]) {
		return ""
	}
	return "https://open.spotify.com/embed/" + seg[0] + "/" + seg[1]
}

// loom: loom.com/share/ID and /embed/ID.
func loom(u *url.URL) string {
	seg := segments(u)
	if len(seg) != 2 || (seg[0] != "share" && seg[0] != "embed") || !loomID.MatchString(seg[1]) {
		return ""
	}
	return "https://www.loom.com/embed/" + seg[1]
}
