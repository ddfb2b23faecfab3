package server

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/number"
)

// LOLWUT [VERSION v] [args...] answers as Redis 7.0's: its own version has
// no art ("Redis ver. 7.0.15"), VERSION 5 draws Georg Nees's Schotter in
// braille and VERSION 6 an 8-bit skyline in terminal colours, both as
// lolwut5.c and lolwut6.c draw them (with C's float arithmetic, so that
// the parts that are not random come out byte for byte), and any other
// version falls back to the plain line.
var lolwutHandlers = map[string]Handler{
	"lolwut": cmdLolwut,
}

func cmdLolwut(c *Client, args [][]byte) {
	ver := Version
	if len(args) >= 3 && strings.EqualFold(string(args[1]), "version") {
		n, ok := number.ParseInt(args[2])
		if !ok {
			c.w.Error(errNotInteger)
			return
		}
		// Redis prints it with %u: a negative version is a large one.
		ver = strconv.FormatUint(uint64(uint32(n)), 10) + ".0.0"
		args = args[2:]
	}
	switch {
	case ver[0] == '5' && ver[1] == '.' && ver[2] != '9', ver[0] == '4' && ver[1] == '.' && ver[2] == '9':
		lolwut5(c, args)
	case ver[0] == '6' && ver[1] == '.' && ver[2] != '9', ver[0] == '5' && ver[1] == '.' && ver[2] == '9':
		lolwut6(c, args)
	default:
		c.w.Verbatim("Redis ver. " + Version + "\n")
	}
}

// lolwutArgs parses args[1:] (as many as defaults has) over the defaults;
// it answers the error and returns false on a number that does not parse.
func lolwutArgs(c *Client, args [][]byte, defaults ...int64) ([]int64, bool) {
	vals := defaults
	for i := range vals {
		if len(args) > i+1 {
			n, ok := number.ParseInt(args[i+1])
			if !ok {
				c.w.Error(errNotInteger)
				return nil, false
			}
			vals[i] = n
		}
	}
	return vals, true
}

func clampLong(n, lo, hi int64) int { return int(min(max(n, lo), hi)) }

// lwCanvas is lolwut.c's canvas: one byte of colour per pixel.
type lwCanvas struct {
	width, height int
	pixels        []byte
}

func newLwCanvas(width, height int, bg byte) *lwCanvas {
	c := &lwCanvas{width: width, height: height, pixels: make([]byte, width*height)}
	for i := range c.pixels {
		c.pixels[i] = bg
	}
	return c
}

func (c *lwCanvas) set(x, y int, color byte) {
	if x < 0 || x >= c.width || y < 0 || y >= c.height {
		return
	}
	c.pixels[x+y*c.width] = color
}

func (c *lwCanvas) get(x, y int) byte {
	if x < 0 || x >= c.width || y < 0 || y >= c.height {
		return 0
	}
	return c.pixels[x+y*c.width]
}

// line is Bresenham's, as lwDrawLine.
func (c *lwCanvas) line(x1, y1, x2, y2 int, color byte) {
	dx, dy := abs(x2-x1), abs(y2-y1)
	sx, sy := 1, 1
	if x1 >= x2 {
		sx = -1
	}
	if y1 >= y2 {
		sy = -1
	}
	err := dx - dy
	for {
		c.set(x1, y1, color)
		if x1 == x2 && y1 == y2 {
			return
		}
		e2 := err * 2
		if e2 > -dy {
			err -= dy
			x1 += sx
		}
		if e2 < dx {
			err += dx
			y1 += sy
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// square draws a square of side size centred on x, y and turned by angle,
// as lwDrawSquare: its corners on the circle around it, in C's float and
// double steps.
func (c *lwCanvas) square(x, y int, size, angle float32) {
	size = float32(float64(size) / 1.4142135623)
	size = float32(math.Round(float64(size)))
	var px, py [4]int
	k := float32(math.Pi/4 + float64(angle))
	for j := range 4 {
		px[j] = int(math.Round(math.Sin(float64(k))*float64(size) + float64(x)))
		py[j] = int(math.Round(math.Cos(float64(k))*float64(size) + float64(y)))
		k = float32(float64(k) + math.Pi/2)
	}
	for j := range 4 {
		c.line(px[j], py[j], px[(j+1)%4], py[(j+1)%4], 1)
	}
}

// crand is C's rand(): 0 to RAND_MAX (glibc's 2^31-1).
func crand() int32 { return rand.Int32() }

const cRandMax = math.MaxInt32

// lolwut5 is LOLWUT [columns] [squares per row] [squares per column]:
// Schotter, rendered two by four pixels a braille character.
func lolwut5(c *Client, args [][]byte) {
	v, ok := lolwutArgs(c, args, 66, 8, 12)
	if !ok {
		return
	}
	cols, perRow, perCol := clampLong(v[0], 1, 1000), clampLong(v[1], 1, 200), clampLong(v[2], 1, 200)
	width := cols * 2
	padding := 0
	if width > 4 {
		padding = 2
	}
	side := float32(width-padding*2) / float32(perRow)
	height := int(side*float32(perCol) + float32(padding*2))
	canvas := newLwCanvas(width, height, 0)
	for y := range perCol {
		for x := range perRow {
			sx := int(float32(x)*side + side/2 + float32(padding))
			sy := int(float32(y)*side + side/2 + float32(padding))
			var angle float32
			if y > 1 { // lower rows turn and move at random, more and more
				r1 := float32(crand()) / float32(cRandMax) / float32(perCol) * float32(y)
				r2 := float32(crand()) / float32(cRandMax) / float32(perCol) * float32(y)
				r3 := float32(crand()) / float32(cRandMax) / float32(perCol) * float32(y)
				if crand()%2 != 0 {
					r1 = -r1
				}
				if crand()%2 != 0 {
					r2 = -r2
				}
				if crand()%2 != 0 {
					r3 = -r3
				}
				angle = r1
				sx = int(float32(sx) + r2*side/3)
				sy = int(float32(sy) + r3*side/3)
			}
			canvas.square(sx, sy, side, angle)
		}
	}
	var b strings.Builder
	for y := 0; y < canvas.height; y += 4 {
		for x := 0; x < canvas.width; x += 2 {
			var dots rune
			for i, p := range [8][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}} {
				if canvas.get(x+p[0], y+p[1]) != 0 {
					dots |= 1 << i
				}
			}
			b.WriteRune(0x2800 + dots)
		}
		if y != canvas.height-1 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. " + Version + "\n")
	c.w.Verbatim(b.String())
}

// lolwut6 is LOLWUT [columns] [rows]: a skyline in the four greys of a
// colour terminal.
func lolwut6(c *Client, args [][]byte) {
	v, ok := lolwutArgs(c, args, 80, 20)
	if !ok {
		return
	}
	canvas := newLwCanvas(clampLong(v[0], 1, 1000), clampLong(v[1], 1, 1000), 3)
	skyline(canvas)
	colors := [4]string{"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"}
	var b strings.Builder
	for y := range canvas.height {
		for x := range canvas.width {
			b.WriteString("\033[" + colors[canvas.get(x, y)&3] + " \033[0m")
		}
		if y != canvas.height-1 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nDedicated to the 8 bit game developers of past and present.\n" +
		"Original 8 bit image from Plaguemon by hikikomori. Redis ver. " + Version + "\n")
	c.w.Verbatim(b.String())
}

type skyscraper struct {
	xoff, width, height int
	windows             bool
	color               byte
}

func skyline(canvas *lwCanvas) {
	r := func(n int) int { return int(crand()) % n }
	h := canvas.height
	// Background towers without windows, the lighter grey behind.
	for color := byte(2); color >= 1; color-- {
		for offset := -10; offset < canvas.width; {
			offset += r(8)
			s := skyscraper{xoff: offset, width: 10 + r(9), color: color}
			if color == 2 {
				s.height = h/2 + r(h)/2
			} else {
				s.height = h/2 + r(h)/3
			}
			tower(canvas, &s)
			if color == 2 {
				offset += s.width / 2
			} else {
				offset += s.width + 1
			}
		}
	}
	// The black foreground towers, with windows.
	for offset := -10; offset < canvas.width; {
		offset += r(8)
		s := skyscraper{xoff: offset, width: 5 + r(14), windows: true}
		if s.width%4 != 0 {
			s.width += s.width % 3
		}
		s.height = h/3 + r(h)/2
		tower(canvas, &s)
		offset += s.width + 5
	}
}

func tower(canvas *lwCanvas, s *skyscraper) {
	starty := canvas.height - 1
	endy := starty - s.height + 1
	for y := starty; y >= endy; y-- {
		for x := s.xoff; x < s.xoff+s.width; x++ {
			if y == endy && (x <= s.xoff+1 || x >= s.xoff+s.width-2) {
				continue // the roof is four pixels narrower
			}
			color := s.color
			if s.windows && x > s.xoff+1 && x < s.xoff+s.width-2 && y > endy+1 && y < starty-1 {
				relx, rely := x-(s.xoff+1), y-(endy+1)
				if relx/2%2 != 0 && rely%2 != 0 {
					for color = byte(1 + crand()%2); color == s.color; color = byte(1 + crand()%2) {
					}
					if relx%2 != 0 { // a window is two pixels wide
						color = canvas.get(x-1, y)
					}
				}
			}
			canvas.set(x, y, color)
		}
	}
}
