/*
 * usb_model.c: the generic calls of the USB device models; see
 * usb_model.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>

#include "usb_model.h"

int usb_model_control(struct usb_model *m, const uint8_t setup[8], const uint8_t *out,
		      uint8_t *in, size_t in_cap)
{
	return m->gone ? -ENODEV : m->ops->control(m, setup, out, in, in_cap);
}

int usb_model_bulk_out(struct usb_model *m, uint8_t ep, const uint8_t *data, size_t len)
{
	return m->gone ? -ENODEV : m->ops->bulk_out(m, ep, data, len);
}

int usb_model_bulk_in(struct usb_model *m, uint8_t ep, uint8_t *buf, size_t cap)
{
	return m->gone ? -ENODEV : m->ops->bulk_in(m, ep, buf, cap);
}

void usb_model_free(struct usb_model *m)
{
	if (m)
		m->ops->destroy(m);
}
