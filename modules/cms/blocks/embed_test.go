package blocks

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlayer(t *testing.T) {
	cases := []struct{ url, src string }{
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://youtube.com/watch?v=dQw4w9WgXcQ&t=42s", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://youtu.be/dQw4w9WgXcQ", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://www.youtube.com/embed/dQw4w9WgXcQ", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://m.youtube.com/shorts/dQw4w9WgXcQ", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"},
		{"https://vimeo.com/76979871/8f2a9c01b3", "https://player.vimeo.com/video/76979871?h=8f2a9c01b3"},
		{"https://player.vimeo.com/video/76979871?h=8f2a9c01b3", "https://player.vimeo.com/video/76979871?h=8f2a9c01b3"},
		{"https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d2428.4!2d13.4!3d52.5", "https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d2428.4!2d13.4!3d52.5"},
		{"https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "https://open.spotify.com/embed/track/4uLU6hMCjMI75M1A2tKUQC"},
		{"https://www.loom.com/share/0123456789abcdef0123456789abcdef", "https://www.loom.com/embed/0123456789abcdef0123456789abcdef"},

		{"https://www.youtube.com/watch?v=short", ""},
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ%22onload", ""},
		{"https://youtube.com.evil.test/watch?v=dQw4w9WgXcQ", ""},
		{"https://user@www.youtube.com/watch?v=dQw4w9WgXcQ", ""},
		{"https://www.youtube.com:8443/watch?v=dQw4w9WgXcQ", ""},
		{"javascript://www.youtube.com/watch?v=dQw4w9WgXcQ", ""},
		{"https://vimeo.com/channels/staff", ""},
		{"https://www.google.com/maps/embed?pb=<script>", ""},
		{"https://www.google.com/search?pb=x", ""},
		{"https://open.spotify.com/user/4uLU6hMCjMI75M1A2tKUQC", ""},
		{"https://www.loom.com/share/../../x", ""},
		{"not a url", ""},
	}
	for _, c := range cases {
		src, _ := player(c.url)
		assert.Equal(t, c.src, src, c.url)
	}
}

func TestFrameSourcesHoldEveryPlayer(t *testing.T) {
	sources := FrameSources()
	assert.Len(t, sources, len(providers))
	for _, p := range providers {
		assert.Contains(t, sources, p.origin)
	}
}
